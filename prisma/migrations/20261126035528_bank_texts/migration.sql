-- CreateEnum
CREATE TYPE "BankTextOutcome" AS ENUM ('DEPOSIT', 'DUPLICATE', 'NOT_A_DEPOSIT', 'UNRECOGNIZED', 'REFUSED');

-- CreateTable
CREATE TABLE "BankText" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "bankAccountId" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "sender" TEXT,
    "phoneReceivedAt" TIMESTAMPTZ(3) NOT NULL,
    "outcome" "BankTextOutcome" NOT NULL,
    "reason" TEXT,
    "kind" TEXT,
    "provider" TEXT,
    "format" TEXT,
    "transactionId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BankText_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BankText_workspaceId_createdAt_idx" ON "BankText"("workspaceId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "BankText_bankAccountId_createdAt_idx" ON "BankText"("bankAccountId", "createdAt" DESC);

-- AddForeignKey
ALTER TABLE "BankText" ADD CONSTRAINT "BankText_bankAccountId_fkey" FOREIGN KEY ("bankAccountId") REFERENCES "BankAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;
