-- CreateEnum
CREATE TYPE "ShopPlatform" AS ENUM ('CAFE24', 'SIMULATED');

-- CreateEnum
CREATE TYPE "ShopConnectionState" AS ENUM ('INSTALLING', 'CONNECTED', 'NEEDS_REAUTHORIZATION', 'DISCONNECTED');

-- CreateEnum
CREATE TYPE "ShopOrderState" AS ENUM ('WAITING', 'REFUSED', 'LINKED', 'CONFIRMING', 'CONFIRMED', 'FAILED', 'CANCELED_IN_SHOP', 'PAID_IN_SHOP');

-- CreateTable
CREATE TABLE "ShopConnection" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "platform" "ShopPlatform" NOT NULL,
    "shopId" TEXT NOT NULL,
    "state" "ShopConnectionState" NOT NULL,
    "installStateHash" TEXT,
    "installExpiresAt" TIMESTAMPTZ(3),
    "accessTokenSealed" TEXT,
    "accessTokenExpiresAt" TIMESTAMPTZ(3),
    "refreshTokenSealed" TEXT,
    "refreshTokenExpiresAt" TIMESTAMPTZ(3),
    "refreshLeaseUntil" TIMESTAMPTZ(3),
    "pendingTokensSealed" TEXT,
    "approvalHash" TEXT,
    "approvalExpiresAt" TIMESTAMPTZ(3),
    "bankAccountIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "pendingBankAccountIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "connectedAt" TIMESTAMPTZ(3),
    "lastSyncAt" TIMESTAMPTZ(3),
    "lastSyncError" TEXT,
    "syncFailures" INTEGER NOT NULL DEFAULT 0,
    "nextSyncAt" TIMESTAMPTZ(3),
    "syncLeaseUntil" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disconnectedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ShopConnection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ShopOrder" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "connectionId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "invoiceId" TEXT,
    "state" "ShopOrderState" NOT NULL,
    "depositorName" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "orderedAt" TIMESTAMPTZ(3) NOT NULL,
    "payBy" TIMESTAMPTZ(3),
    "buyerEmail" TEXT,
    "buyerPhone" TEXT,
    "reason" TEXT,
    "confirmAttempts" INTEGER NOT NULL DEFAULT 0,
    "confirmErrorCode" TEXT,
    "confirmErrorMessage" TEXT,
    "confirmRequestedAt" TIMESTAMPTZ(3),
    "confirmedAt" TIMESTAMPTZ(3),
    "attention" TEXT,
    "attentionAt" TIMESTAMPTZ(3),
    "statusCheckedAt" TIMESTAMPTZ(3),
    "missingChecks" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ShopOrder_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SimulatedShopOrder" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "buyerName" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "buyerEmail" TEXT,
    "orderedAt" TIMESTAMPTZ(3) NOT NULL,
    "payBy" TIMESTAMPTZ(3),
    "paidAt" TIMESTAMPTZ(3),
    "confirmCalls" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SimulatedShopOrder_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ShopConnection_installStateHash_key" ON "ShopConnection"("installStateHash");

-- CreateIndex
CREATE UNIQUE INDEX "ShopConnection_approvalHash_key" ON "ShopConnection"("approvalHash");

-- CreateIndex
CREATE INDEX "ShopConnection_state_nextSyncAt_idx" ON "ShopConnection"("state", "nextSyncAt");

-- CreateIndex
CREATE UNIQUE INDEX "ShopConnection_workspaceId_platform_shopId_key" ON "ShopConnection"("workspaceId", "platform", "shopId");

-- CreateIndex
CREATE UNIQUE INDEX "ShopOrder_invoiceId_key" ON "ShopOrder"("invoiceId");

-- CreateIndex
CREATE INDEX "ShopOrder_connectionId_state_idx" ON "ShopOrder"("connectionId", "state");

-- CreateIndex
CREATE INDEX "ShopOrder_workspaceId_createdAt_idx" ON "ShopOrder"("workspaceId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ShopOrder_connectionId_orderId_key" ON "ShopOrder"("connectionId", "orderId");

-- CreateIndex
CREATE INDEX "SimulatedShopOrder_shopId_status_idx" ON "SimulatedShopOrder"("shopId", "status");

-- AddForeignKey
ALTER TABLE "ShopConnection" ADD CONSTRAINT "ShopConnection_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ShopOrder" ADD CONSTRAINT "ShopOrder_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "ShopConnection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A shop order imported after its buyer's transfer looks the deposit up among the unmatched ones (partial: a deposit
-- stored matched adds no entry).
CREATE INDEX "Transaction_unmatched_amount_idx" ON "Transaction"("workspaceId", "amount", "createdAt") WHERE "matchedInvoiceId" IS NULL;
