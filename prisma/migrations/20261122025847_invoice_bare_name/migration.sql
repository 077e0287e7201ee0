-- AlterTable
ALTER TABLE "Invoice" ADD COLUMN     "customerNameBare" TEXT NOT NULL DEFAULT '';

-- Backfill: bracketed parts removed (twice, for one level of nesting), then whitespace (src/domain/deposits/name-matching.ts removeBrackets).
UPDATE "Invoice" SET "customerNameBare" = regexp_replace(
  regexp_replace(
    regexp_replace("customerName", '\([^()]*\)|\[[^][]*\]|\{[^{}]*\}|（[^（）]*）|【[^【】]*】', '', 'g'),
    '\([^()]*\)|\[[^][]*\]|\{[^{}]*\}|（[^（）]*）|【[^【】]*】', '', 'g'),
  '\s', '', 'g');

-- CreateIndex
CREATE INDEX "Invoice_workspaceId_amount_customerNameBare_idx" ON "Invoice"("workspaceId", "amount", "customerNameBare");

-- CreateIndex
CREATE INDEX "Invoice_name_prefix_idx" ON "Invoice"("workspaceId", "amount", "customerName" text_pattern_ops);
