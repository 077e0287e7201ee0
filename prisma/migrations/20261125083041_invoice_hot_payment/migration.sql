-- Paying an invoice (status, paidAt, paidTrigger, updatedAt) changes no indexed column, so PostgreSQL can update the
-- row in place (a heap-only tuple) instead of inserting into every index of "Invoice", the trigram GIN index among them.
-- Pending-only lookups use Invoice_name_prefix_idx (workspaceId, amount, customerName) and the bracket-free name index,
-- and check status on the rows they find (all invoices of that name and amount, paid ones included).

-- DropIndex
DROP INDEX "Invoice_workspaceId_amount_status_idx";

-- DropIndex
DROP INDEX "Invoice_workspaceId_customerName_amount_status_idx";

-- Room on each page for the paid version of its rows. It applies to pages written from now on; an existing table's
-- full pages get it only when the table is rewritten (VACUUM FULL, pg_repack), until then those updates are not HOT.
ALTER TABLE "Invoice" SET (fillfactor = 85);
