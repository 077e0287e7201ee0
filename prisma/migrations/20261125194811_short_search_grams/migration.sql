-- CreateTable
CREATE TABLE "InvoiceSearchGram" (
    "workspaceId" TEXT NOT NULL,
    "gram" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "number" INTEGER NOT NULL,
    "canceled" BOOLEAN NOT NULL,
    "id" TEXT NOT NULL,

    CONSTRAINT "InvoiceSearchGram_pkey" PRIMARY KEY ("workspaceId","gram","createdAt","number","canceled","id")
);

-- CreateTable
CREATE TABLE "TransactionSearchGram" (
    "workspaceId" TEXT NOT NULL,
    "gram" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "id" TEXT NOT NULL,

    CONSTRAINT "TransactionSearchGram_pkey" PRIMARY KEY ("workspaceId","gram","createdAt","id")
);

-- The short n-grams of a searchText: every substring of one or two characters that holds a character outside ASCII
-- and no \u0001 (the separator between fields; a search term never holds it). Exactly what a term of one or two
-- characters with a non-ASCII character finds with `"searchText" LIKE '%term%'` (src/domain/search-grams.ts is the
-- same rule in TypeScript). ASCII-only grams are left out: they are ~10 times as many per row (e-mails, phone and
-- account numbers) and a one- or two-character ASCII term matches a large part of any workspace anyway.
-- PL/pgSQL rather than one SQL query: a SQL function that cannot be inlined is planned again at each call (before
-- PostgreSQL 18), which took more time per insert than the loop below does in all.
CREATE FUNCTION search_grams(t text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n int := char_length(t);
  grams text[] := '{}';
  g text;
BEGIN
  IF t IS NULL OR octet_length(t) = n THEN RETURN grams; END IF; -- ASCII only (UTF-8: one byte a character): no gram
  FOR i IN 1 .. n LOOP
    g := substr(t, i, 1);
    IF octet_length(g) > 1 AND NOT g = ANY (grams) THEN grams := grams || g; END IF;
    g := substr(t, i, 2);
    IF char_length(g) = 2 AND octet_length(g) > 2 AND strpos(g, chr(1)) = 0 AND NOT g = ANY (grams) THEN grams := grams || g; END IF;
  END LOOP;
  RETURN grams;
END
$$;

-- The grams follow the rows in the statement that writes them. Inserts: one statement-level trigger per INSERT (a
-- batch of deposits is one INSERT ... SELECT for the grams of all its rows). Updates: a row trigger whose WHEN reads
-- only the old and new row, so paying an invoice (status PENDING → PAID) or matching a deposit runs no function and
-- stays a heap-only update of "Invoice". Deletes (a workspace's, by cascade) take the rows' grams with them.
CREATE FUNCTION invoice_search_grams_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "InvoiceSearchGram" ("workspaceId", gram, "createdAt", number, canceled, id)
  SELECT n."workspaceId", g, n."createdAt", n.number, n.status = 'CANCELED', n.id FROM inserted n, unnest(search_grams(n."searchText")) g;
  RETURN NULL;
END
$$;

CREATE FUNCTION invoice_search_grams_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM "InvoiceSearchGram"
     WHERE "workspaceId" = OLD."workspaceId" AND gram = ANY (search_grams(OLD."searchText")) AND "createdAt" = OLD."createdAt" AND number = OLD.number;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO "InvoiceSearchGram" ("workspaceId", gram, "createdAt", number, canceled, id)
    SELECT NEW."workspaceId", g, NEW."createdAt", NEW.number, NEW.status = 'CANCELED', NEW.id FROM unnest(search_grams(NEW."searchText")) g;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER invoice_search_grams_inserted AFTER INSERT ON "Invoice" REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION invoice_search_grams_inserted();

CREATE TRIGGER invoice_search_grams_updated AFTER UPDATE OF "searchText", status, "createdAt", number, "workspaceId", id ON "Invoice"
  FOR EACH ROW WHEN (OLD."searchText" IS DISTINCT FROM NEW."searchText" OR (OLD.status = 'CANCELED') IS DISTINCT FROM (NEW.status = 'CANCELED')
                     OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt" OR OLD.number IS DISTINCT FROM NEW.number
                     OR OLD."workspaceId" IS DISTINCT FROM NEW."workspaceId" OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION invoice_search_grams_changed();

CREATE TRIGGER invoice_search_grams_deleted AFTER DELETE ON "Invoice" FOR EACH ROW EXECUTE FUNCTION invoice_search_grams_changed();

-- Deposits: only visible ones (deletedAt null) have grams, as only those are listed.
CREATE FUNCTION transaction_search_grams_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "TransactionSearchGram" ("workspaceId", gram, "createdAt", id)
  SELECT n."workspaceId", g, n."createdAt", n.id FROM inserted n, unnest(search_grams(n."searchText")) g WHERE n."deletedAt" IS NULL;
  RETURN NULL;
END
$$;

CREATE FUNCTION transaction_search_grams_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."deletedAt" IS NULL THEN
    DELETE FROM "TransactionSearchGram"
     WHERE "workspaceId" = OLD."workspaceId" AND gram = ANY (search_grams(OLD."searchText")) AND "createdAt" = OLD."createdAt" AND id = OLD.id;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW."deletedAt" IS NULL THEN
    INSERT INTO "TransactionSearchGram" ("workspaceId", gram, "createdAt", id)
    SELECT NEW."workspaceId", g, NEW."createdAt", NEW.id FROM unnest(search_grams(NEW."searchText")) g;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER transaction_search_grams_inserted AFTER INSERT ON "Transaction" REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION transaction_search_grams_inserted();

CREATE TRIGGER transaction_search_grams_updated AFTER UPDATE OF "searchText", "deletedAt", "createdAt", "workspaceId", id ON "Transaction"
  FOR EACH ROW WHEN (OLD."searchText" IS DISTINCT FROM NEW."searchText" OR (OLD."deletedAt" IS NULL) IS DISTINCT FROM (NEW."deletedAt" IS NULL)
                     OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt" OR OLD."workspaceId" IS DISTINCT FROM NEW."workspaceId" OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION transaction_search_grams_changed();

CREATE TRIGGER transaction_search_grams_deleted AFTER DELETE ON "Transaction" FOR EACH ROW EXECUTE FUNCTION transaction_search_grams_changed();

-- Backfill, with the triggers already in place (they lock out writers of both tables until this migration commits:
-- about a minute for a million invoices and a million deposits on a 2-core machine). The keys are built once after
-- the insert instead of an entry per row.
ALTER TABLE "InvoiceSearchGram" DROP CONSTRAINT "InvoiceSearchGram_pkey";
INSERT INTO "InvoiceSearchGram" ("workspaceId", gram, "createdAt", number, canceled, id)
SELECT i."workspaceId", g, i."createdAt", i.number, i.status = 'CANCELED', i.id FROM "Invoice" i, unnest(search_grams(i."searchText")) g;
ALTER TABLE "InvoiceSearchGram" ADD CONSTRAINT "InvoiceSearchGram_pkey" PRIMARY KEY ("workspaceId", "gram", "createdAt", "number", "canceled", "id");

ALTER TABLE "TransactionSearchGram" DROP CONSTRAINT "TransactionSearchGram_pkey";
INSERT INTO "TransactionSearchGram" ("workspaceId", gram, "createdAt", id)
SELECT t."workspaceId", g, t."createdAt", t.id FROM "Transaction" t, unnest(search_grams(t."searchText")) g WHERE t."deletedAt" IS NULL;
ALTER TABLE "TransactionSearchGram" ADD CONSTRAINT "TransactionSearchGram_pkey" PRIMARY KEY ("workspaceId", "gram", "createdAt", "id");

-- A count reads only the key when the visibility map says the heap page is all-visible: vacuum these insert-mostly
-- tables after 1 % new rows (the default waits for 20 %, and the newest rows, the ones a list shows first, would be
-- read from the heap until then).
ALTER TABLE "InvoiceSearchGram" SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE "TransactionSearchGram" SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
ANALYZE "InvoiceSearchGram";
ANALYZE "TransactionSearchGram";
