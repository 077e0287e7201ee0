-- Depositor names are compared in one normalised form (src/domain/deposits/depositor-name.ts): full-width ASCII folded,
-- NFC, A-Z lower-cased. "customerNameKey" holds an invoice's name in that form (EXACT and NAME_PREFIX matching and the
-- conflict check look it up by index); "customerNameBare" is recomputed from it (brackets of every width removed).
-- The application writes both for new rows; the functions below are the same rule in SQL (depositor-name.ts nameKeySql
-- and bareNameSql; exact for names of at most 16 characters), checked against it by test/integration/migrations.test.ts.
-- The upgrade rewrites every invoice row once and holds "Invoice" locked meanwhile (about 45 s for a million invoices
-- on a 2-core machine, name indexes rebuilt included).

-- AlterTable
ALTER TABLE "Invoice" ADD COLUMN     "customerNameKey" TEXT NOT NULL DEFAULT '';

-- The two name indexes are built again after the backfill: one build each instead of an entry per rewritten row.
-- DropIndex
DROP INDEX "Invoice_name_prefix_idx";

-- DropIndex
DROP INDEX "Invoice_workspaceId_amount_customerNameBare_idx";

CREATE FUNCTION depositor_name_key(name text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT normalize(translate(normalize(translate(name, '！＂＃＄％＆＇（）＊＋，－．／０１２３４５６７８９：；＜＝＞？＠ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺ［＼］＾＿｀ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ｛｜｝～　', '!"#$%&''()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqrstuvwxyz{|}~ '), NFC), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), NFC)
$$;

CREATE FUNCTION depositor_name_bare(key text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(key, '\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|〔[^〔〕]*〕|〈[^〈〉]*〉|《[^《》]*》|「[^「」]*」|『[^『』]*』|【[^【】]*】|〖[^〖〗]*〗|〘[^〘〙]*〙|〚[^〚〛]*〛|｢[^｢｣]*｣', '', 'g'), '\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|〔[^〔〕]*〕|〈[^〈〉]*〉|《[^《》]*》|「[^「」]*」|『[^『』]*』|【[^【】]*】|〖[^〖〗]*〗|〘[^〘〙]*〙|〚[^〚〛]*〛|｢[^｢｣]*｣', '', 'g'), '\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|〔[^〔〕]*〕|〈[^〈〉]*〉|《[^《》]*》|「[^「」]*」|『[^『』]*』|【[^【】]*】|〖[^〖〗]*〗|〘[^〘〙]*〙|〚[^〚〛]*〛|｢[^｢｣]*｣', '', 'g'), '\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|〔[^〔〕]*〕|〈[^〈〉]*〉|《[^《》]*》|「[^「」]*」|『[^『』]*』|【[^【】]*】|〖[^〖〗]*〗|〘[^〘〙]*〙|〚[^〚〛]*〛|｢[^｢｣]*｣', '', 'g'), '\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|〔[^〔〕]*〕|〈[^〈〉]*〉|《[^《》]*》|「[^「」]*」|『[^『』]*』|【[^【】]*】|〖[^〖〗]*〗|〘[^〘〙]*〙|〚[^〚〛]*〛|｢[^｢｣]*｣', '', 'g'), '\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|〔[^〔〕]*〕|〈[^〈〉]*〉|《[^《》]*》|「[^「」]*」|『[^『』]*』|【[^【】]*】|〖[^〖〗]*〗|〘[^〘〙]*〙|〚[^〚〛]*〛|｢[^｢｣]*｣', '', 'g'), '\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|〔[^〔〕]*〕|〈[^〈〉]*〉|《[^《》]*》|「[^「」]*」|『[^『』]*』|【[^【】]*】|〖[^〖〗]*〗|〘[^〘〙]*〙|〚[^〚〛]*〛|｢[^｢｣]*｣', '', 'g'), '\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>|〔[^〔〕]*〕|〈[^〈〉]*〉|《[^《》]*》|「[^「」]*」|『[^『』]*』|【[^【】]*】|〖[^〖〗]*〗|〘[^〘〙]*〙|〚[^〚〛]*〛|｢[^｢｣]*｣', '', 'g'), '[[:space:]]', '', 'g')
$$;

-- Backfill: one pass over "Invoice". List searches compare the same normalised form (searchNormalize in
-- src/domain/validation.ts: the name rule, hyphens removed, lower-cased), so "searchText" is recomputed too: earlier
-- releases only removed ASCII hyphens and lower-cased (a name sent in NFD was not found by the same name in NFC).
UPDATE "Invoice" SET "customerNameKey" = depositor_name_key("customerName"),
                     "customerNameBare" = depositor_name_bare(depositor_name_key("customerName")),
                     "searchText" = replace(depositor_name_key("searchText"), '-', '');

-- The deposits' search text (account number, depositor name) likewise; only the rows it changes are written.
UPDATE "Transaction" SET "searchText" = replace(depositor_name_key("searchText"), '-', '')
 WHERE "searchText" <> replace(depositor_name_key("searchText"), '-', '');

-- A 1-won deposit named with its account's verification code is a verification deposit whether or not the account was
-- verified (and compared normalised, whitespace and zero-width characters removed: `123 456` is `123456`). Those
-- stored visible and unmatched before become what they are: hidden, never matched. One that already paid an invoice is left as it is (un-matching it is the merchant's decision).
UPDATE "Transaction" t SET hidden = true, verification = true, "updatedAt" = now()
  FROM "BankAccount" a
 WHERE a.id = t."bankAccountId" AND t.amount = 1 AND NOT t.verification AND t."matchedInvoiceId" IS NULL
   AND regexp_replace(depositor_name_key(t.description), '[[:space:]\u00AD\u200B-\u200F\u2060-\u2064\uFEFF]', '', 'g')
     = regexp_replace(depositor_name_key(a."verificationCode"), '[[:space:]]', '', 'g');

-- During a rolling upgrade, instances of the previous release still create and rename invoices without
-- "customerNameKey": this trigger gives such rows their comparison columns (a row this release writes carries its own,
-- and the trigger leaves it alone; paying an invoice does not name "customerName", so it does not fire). A later
-- migration drops the trigger and the two functions once no instance of the previous release runs.
CREATE FUNCTION invoice_name_columns_of_previous_release() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."customerNameKey" = ''
     OR (TG_OP = 'UPDATE' AND NEW."customerName" IS DISTINCT FROM OLD."customerName" AND NEW."customerNameKey" = OLD."customerNameKey") THEN
    NEW."customerNameKey" := depositor_name_key(NEW."customerName");
    NEW."customerNameBare" := depositor_name_bare(NEW."customerNameKey");
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER invoice_name_columns_of_previous_release BEFORE INSERT OR UPDATE OF "customerName" ON "Invoice"
  FOR EACH ROW EXECUTE FUNCTION invoice_name_columns_of_previous_release();

-- CreateIndex
CREATE INDEX "Invoice_name_prefix_idx" ON "Invoice"("workspaceId", "amount", "customerNameKey" text_pattern_ops);

-- CreateIndex
CREATE INDEX "Invoice_workspaceId_amount_customerNameBare_idx" ON "Invoice"("workspaceId", "amount", "customerNameBare");
