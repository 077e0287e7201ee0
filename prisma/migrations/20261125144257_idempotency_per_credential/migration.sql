-- Idempotency keys are scoped to the credential that made the first request (a replay went to any credential of the
-- workspace that sent the same key and request: a read-only key got another key's 201, any key got a dashboard
-- answer's secrets), and stored responses are sealed (AES-256-GCM) instead of kept in clear text.
--
-- The stored answers are dropped: they were in clear text and keyed for any credential, and they expire within 24 h
-- anyway. A client retrying a request made before the upgrade runs it again (as it would 24 h later). During a rolling
-- upgrade an instance of the previous release cannot store a key any more ("credentialId" has no value for it): its
-- requests that carry an Idempotency-Key fail with 500 before anything runs, and a retry reaching a new instance runs.
DELETE FROM "IdempotencyKey";

-- AlterTable
ALTER TABLE "IdempotencyKey" DROP CONSTRAINT "IdempotencyKey_pkey",
DROP COLUMN "responseBody",
ADD COLUMN     "credentialId" TEXT NOT NULL,
ADD COLUMN     "sealedResponse" TEXT,
ADD CONSTRAINT "IdempotencyKey_pkey" PRIMARY KEY ("workspaceId", "credentialId", "key");
