-- Paying an invoice (status, paidAt, paidTrigger, updatedAt) changes no indexed column, so PostgreSQL can update the
-- row in place (a heap-only tuple) instead of inserting into every index of "Invoice", two trigram GIN ones among them.
-- Pending-only lookups use Invoice_name_prefix_idx (workspaceId, amount, customerName) and the bracket-free name index,
-- and check status on the rows they find.

-- DropIndex
DROP INDEX "Invoice_workspaceId_amount_status_idx";

-- DropIndex
DROP INDEX "Invoice_workspaceId_customerName_amount_status_idx";

-- Room on each page for the paid version of its rows (existing full pages gain it as they are rewritten).
ALTER TABLE "Invoice" SET (fillfactor = 85);
