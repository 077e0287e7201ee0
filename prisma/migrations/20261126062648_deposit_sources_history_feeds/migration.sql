-- CreateEnum
CREATE TYPE "HistoryFeedState" AS ENUM ('ACTIVE', 'NEEDS_ATTENTION', 'PAUSED');

-- CreateEnum
CREATE TYPE "BankTextResolution" AS ENUM ('ENTERED', 'DISMISSED');

-- CreateEnum
CREATE TYPE "DepositSource" AS ENUM ('NOTIFICATION', 'TEXT', 'HISTORY');

-- AlterTable
ALTER TABLE "BankText" ADD COLUMN     "resolution" "BankTextResolution",
ADD COLUMN     "resolvedAt" TIMESTAMPTZ(3),
ADD COLUMN     "resolvedBy" TEXT;

-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "balanceAfter" DOUBLE PRECISION,
ADD COLUMN     "historyRowId" TEXT,
ADD COLUMN     "historySeenAt" TIMESTAMPTZ(3),
ADD COLUMN     "source" "DepositSource" NOT NULL DEFAULT 'NOTIFICATION',
ADD COLUMN     "textAnnouncedAt" TIMESTAMPTZ(3),
ADD COLUMN     "textChannels" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "HistoryFeed" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "bankAccountId" TEXT NOT NULL,
    "aggregator" TEXT NOT NULL,
    "corpNum" TEXT,
    "state" "HistoryFeedState" NOT NULL DEFAULT 'ACTIVE',
    "intervalMs" INTEGER NOT NULL,
    "lastPolledAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "nextPollAt" TIMESTAMPTZ(3),
    "pollLeaseUntil" TIMESTAMPTZ(3),
    "lastRows" INTEGER NOT NULL DEFAULT 0,
    "lastNew" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HistoryFeed_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SimulatedHistoryRow" (
    "id" TEXT NOT NULL,
    "feedId" TEXT NOT NULL,
    "rowId" TEXT NOT NULL,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL,
    "amount" INTEGER NOT NULL,
    "depositorName" TEXT NOT NULL,
    "balanceAfter" DOUBLE PRECISION,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SimulatedHistoryRow_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "HistoryFeed_bankAccountId_key" ON "HistoryFeed"("bankAccountId");

-- CreateIndex
CREATE INDEX "HistoryFeed_state_nextPollAt_idx" ON "HistoryFeed"("state", "nextPollAt");

-- CreateIndex
CREATE INDEX "HistoryFeed_workspaceId_idx" ON "HistoryFeed"("workspaceId");

-- CreateIndex
CREATE INDEX "SimulatedHistoryRow_feedId_occurredAt_idx" ON "SimulatedHistoryRow"("feedId", "occurredAt");

-- CreateIndex
CREATE UNIQUE INDEX "SimulatedHistoryRow_feedId_rowId_key" ON "SimulatedHistoryRow"("feedId", "rowId");

-- CreateIndex
CREATE UNIQUE INDEX "Transaction_bankAccountId_historyRowId_key" ON "Transaction"("bankAccountId", "historyRowId");

-- AddForeignKey
ALTER TABLE "HistoryFeed" ADD CONSTRAINT "HistoryFeed_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HistoryFeed" ADD CONSTRAINT "HistoryFeed_bankAccountId_fkey" FOREIGN KEY ("bankAccountId") REFERENCES "BankAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SimulatedHistoryRow" ADD CONSTRAINT "SimulatedHistoryRow_feedId_fkey" FOREIGN KEY ("feedId") REFERENCES "HistoryFeed"("id") ON DELETE CASCADE ON UPDATE CASCADE;
