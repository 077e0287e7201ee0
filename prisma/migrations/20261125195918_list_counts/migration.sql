-- DropIndex
DROP INDEX "CashReceipt_workspaceId_issuedAt_idx";

-- DropIndex
DROP INDEX "Invoice_workspaceId_createdAt_idx";

-- DropIndex
DROP INDEX "Transaction_workspaceId_createdAt_idx";

-- CreateTable
CREATE TABLE "ListCount" (
    "workspaceId" TEXT NOT NULL,
    "list" TEXT NOT NULL,
    "k1" TEXT NOT NULL,
    "k2" TEXT NOT NULL,
    "expiryDay" TIMESTAMPTZ(3) NOT NULL,
    "shard" INTEGER NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "ListCount_pkey" PRIMARY KEY ("workspaceId","list","k1","k2","expiryDay","shard")
);

-- CreateIndex
CREATE INDEX "CashReceipt_workspaceId_issuedAt_id_deletedAt_idx" ON "CashReceipt"("workspaceId", "issuedAt" DESC, "id" DESC, "deletedAt");

-- CreateIndex
CREATE INDEX "Invoice_workspaceId_createdAt_number_id_idx" ON "Invoice"("workspaceId", "createdAt" DESC, "number" DESC, "id");

-- CreateIndex
CREATE INDEX "Invoice_workspaceId_expiresAt_idx" ON "Invoice"("workspaceId", "expiresAt");

-- CreateIndex
CREATE INDEX "Transaction_workspaceId_createdAt_id_deletedAt_idx" ON "Transaction"("workspaceId", "createdAt" DESC, "id" DESC, "deletedAt");

-- AddForeignKey
ALTER TABLE "ListCount" ADD CONSTRAINT "ListCount_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ───────────── Counts kept per workspace (hand-written; schema.prisma documents ListCount) ─────────────
-- Every insert, delete, and update that moves a row to another cell adds its +1/-1 to the workspace's ListCount row of
-- that cell, in the same transaction, by a row-level constraint trigger deferred to the commit: the counter row is
-- locked only while the transaction commits (writers of one workspace that already hold its Workspace row — invoice
-- creates, payments, cancels — gain no new wait; unmatched deposits, which do not, spread over 8 shards by backend).
-- An invoice's cell includes the UTC day of its expiry, so "expired at now" is answered by the counters of the days
-- before today plus a count of the invoices expiring today (src/domain/list-counts.ts).

CREATE FUNCTION list_count_day(expires timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN expires IS NULL THEN 'infinity'::timestamptz ELSE date_trunc('day', expires, 'UTC') END
$$;

-- An invoice's receiving accounts as a cell key: sorted, comma-separated ('' = all accounts of the workspace).
-- PL/pgSQL, not SQL, in this function and the next: a SQL function with a subquery or a write is planned afresh at
-- every call (PostgreSQL 17), and these run for every row a trigger counts (a counted change cost ~0.3 ms of planning
-- and calling, ten times the row's own update; PL/pgSQL keeps its plans for the session).
CREATE FUNCTION list_count_accounts(ids text[]) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN ''; END IF;
  IF cardinality(ids) = 1 THEN RETURN coalesce(ids[1], ''); END IF;
  RETURN array_to_string(ARRAY(SELECT DISTINCT x FROM unnest(ids) x ORDER BY x), ',');
END $$;

-- Adds delta to a counter: an update of the row when it exists (the common case, cheaper than an upsert's speculative
-- insert), else an upsert (two first changes of a new cell at once), never for a workspace being deleted.
CREATE FUNCTION list_count_bump(ws text, lst text, a text, b text, day timestamptz, sh int, delta int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "ListCount" SET n = n + delta WHERE "workspaceId" = ws AND list = lst AND k1 = a AND k2 = b AND "expiryDay" = day AND shard = sh;
  IF NOT FOUND THEN
    INSERT INTO "ListCount" AS c ("workspaceId", list, k1, k2, "expiryDay", shard, n)
    SELECT ws, lst, a, b, day, sh, delta WHERE EXISTS (SELECT 1 FROM "Workspace" w WHERE w.id = ws)
    ON CONFLICT ("workspaceId", list, k1, k2, "expiryDay", shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
END $$;

CREATE FUNCTION list_count_invoice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM list_count_bump(OLD."workspaceId", 'Invoice', OLD.status::text, list_count_accounts(OLD."bankAccountIds"), list_count_day(OLD."expiresAt"), 0, -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM list_count_bump(NEW."workspaceId", 'Invoice', NEW.status::text, list_count_accounts(NEW."bankAccountIds"), list_count_day(NEW."expiresAt"), 0, 1);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION list_count_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."deletedAt" IS NULL THEN
    PERFORM list_count_bump(OLD."workspaceId", 'Transaction', OLD."bankAccountId",
      CASE WHEN OLD."matchedInvoiceId" IS NULL THEN 'U' ELSE 'M' END || CASE WHEN OLD.hidden THEN 'H' ELSE '' END, 'infinity', pg_backend_pid() % 8, -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW."deletedAt" IS NULL THEN
    PERFORM list_count_bump(NEW."workspaceId", 'Transaction', NEW."bankAccountId",
      CASE WHEN NEW."matchedInvoiceId" IS NULL THEN 'U' ELSE 'M' END || CASE WHEN NEW.hidden THEN 'H' ELSE '' END, 'infinity', pg_backend_pid() % 8, 1);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION list_count_cash_receipt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."deletedAt" IS NULL THEN
    PERFORM list_count_bump(OLD."workspaceId", 'CashReceipt', OLD.status::text, OLD.type::text, 'infinity', pg_backend_pid() % 8, -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW."deletedAt" IS NULL THEN
    PERFORM list_count_bump(NEW."workspaceId", 'CashReceipt', NEW.status::text, NEW.type::text, 'infinity', pg_backend_pid() % 8, 1);
  END IF;
  RETURN NULL;
END $$;

-- New invoices are counted once per statement, per cell (a bulk INSERT of many rows of one cell then updates its
-- counter once: updating one row many times in one transaction costs quadratically, each update walking past the
-- versions the transaction left). Not deferred: every statement inserting invoices already holds the workspace row
-- (the create takes its number from it), and every transaction counting invoice changes holds it before the counter.
CREATE FUNCTION list_count_invoices_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ListCount" AS c ("workspaceId", list, k1, k2, "expiryDay", shard, n)
  SELECT i."workspaceId", 'Invoice', i.status::text, list_count_accounts(i."bankAccountIds"), list_count_day(i."expiresAt"), 0, count(*)
    FROM inserted_invoices i WHERE EXISTS (SELECT 1 FROM "Workspace" w WHERE w.id = i."workspaceId")
   GROUP BY 1, 3, 4, 5 ORDER BY 1, 3, 4, 5
  ON CONFLICT ("workspaceId", list, k1, k2, "expiryDay", shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE TRIGGER "Invoice_list_count_insert" AFTER INSERT ON "Invoice" REFERENCING NEW TABLE AS inserted_invoices
  FOR EACH STATEMENT EXECUTE FUNCTION list_count_invoices_inserted();
CREATE CONSTRAINT TRIGGER "Invoice_list_count_delete" AFTER DELETE ON "Invoice"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION list_count_invoice();
CREATE CONSTRAINT TRIGGER "Invoice_list_count_update" AFTER UPDATE ON "Invoice" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD."expiresAt" IS DISTINCT FROM NEW."expiresAt" OR OLD."bankAccountIds" IS DISTINCT FROM NEW."bankAccountIds"
        OR OLD."workspaceId" IS DISTINCT FROM NEW."workspaceId")
  EXECUTE FUNCTION list_count_invoice();
CREATE CONSTRAINT TRIGGER "Transaction_list_count_insert_delete" AFTER INSERT OR DELETE ON "Transaction"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION list_count_transaction();
CREATE CONSTRAINT TRIGGER "Transaction_list_count_update" AFTER UPDATE ON "Transaction" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD."matchedInvoiceId" IS DISTINCT FROM NEW."matchedInvoiceId" OR OLD.hidden IS DISTINCT FROM NEW.hidden OR OLD."deletedAt" IS DISTINCT FROM NEW."deletedAt"
        OR OLD."bankAccountId" IS DISTINCT FROM NEW."bankAccountId" OR OLD."workspaceId" IS DISTINCT FROM NEW."workspaceId")
  EXECUTE FUNCTION list_count_transaction();
CREATE CONSTRAINT TRIGGER "CashReceipt_list_count_insert_delete" AFTER INSERT OR DELETE ON "CashReceipt"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION list_count_cash_receipt();
CREATE CONSTRAINT TRIGGER "CashReceipt_list_count_update" AFTER UPDATE ON "CashReceipt" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.type IS DISTINCT FROM NEW.type OR OLD."deletedAt" IS DISTINCT FROM NEW."deletedAt" OR OLD."workspaceId" IS DISTINCT FROM NEW."workspaceId")
  EXECUTE FUNCTION list_count_cash_receipt();

-- Counts the rows of one workspace (or of all, with NULL) afresh: the backfill below, and bulk loads that ran with
-- triggers off (session_replication_role = replica).
CREATE FUNCTION list_counts_rebuild(ws text) RETURNS void LANGUAGE sql AS $$
  DELETE FROM "ListCount" WHERE ws IS NULL OR "workspaceId" = ws;
  INSERT INTO "ListCount" ("workspaceId", list, k1, k2, "expiryDay", shard, n)
  SELECT "workspaceId", 'Invoice', status::text, list_count_accounts("bankAccountIds"), list_count_day("expiresAt"), 0, count(*) FROM "Invoice"
   WHERE ws IS NULL OR "workspaceId" = ws GROUP BY 1, 3, 4, 5
  UNION ALL
  SELECT "workspaceId", 'Transaction', "bankAccountId", CASE WHEN "matchedInvoiceId" IS NULL THEN 'U' ELSE 'M' END || CASE WHEN hidden THEN 'H' ELSE '' END,
         'infinity', 0, count(*) FROM "Transaction"
   WHERE (ws IS NULL OR "workspaceId" = ws) AND "deletedAt" IS NULL GROUP BY 1, 3, 4
  UNION ALL
  SELECT "workspaceId", 'CashReceipt', status::text, type::text, 'infinity', 0, count(*) FROM "CashReceipt"
   WHERE (ws IS NULL OR "workspaceId" = ws) AND "deletedAt" IS NULL GROUP BY 1, 3, 4;
$$;

SELECT list_counts_rebuild(NULL);
