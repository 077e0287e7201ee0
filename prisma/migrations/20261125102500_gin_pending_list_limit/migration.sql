-- The trigram GIN indexes keep new entries in a pending list (fastupdate) and merge it into the index when it passes
-- gin_pending_list_limit (default 4 MB). The insert that crosses the limit does the merge: on this service's deposit
-- rows, one merge every ~6,500 inserts, taking 80-145 ms inside that deposit's transaction, while the workspace's next
-- deposits waited behind it for their event sequence. With a 256 kB list the merges come ~16 times as often and take
-- ~15 ms each, for about the same total work (measured: 20,000 inserts, 8.6 s against 8.7 s; with fastupdate off,
-- 12.1 s and a slower p50). test/bench/README.md has the figures.
ALTER INDEX "Transaction_searchText_idx" SET (gin_pending_list_limit = 256);
ALTER INDEX "Invoice_searchText_idx" SET (gin_pending_list_limit = 256);
ALTER INDEX "CashReceipt_searchText_idx" SET (gin_pending_list_limit = 256);
