-- The outbox's queue moves out of "Event" into "OutboxEntry": one small row per event not yet dispatched, written by a
-- trigger in the event's own transaction, deleted by the dispatcher that claims it. Marking an event dispatched used to
-- update its row: a new version of the whole row (the JSON payload included) and an entry in each of its four indexes,
-- about a quarter of a deposit's WAL. Event rows are now written once and never updated by this release.

-- No event may be inserted while the queue is set up (instances still running the previous code keep writing events):
-- one committed between the copy below and the trigger would be in neither. The lock is the one DROP INDEX takes at
-- the end, taken first (taking a weaker one first and then this one could deadlock with a reader that writes after).
-- Everything below is short: the copy reads the undispatched events only.
LOCK TABLE "Event" IN ACCESS EXCLUSIVE MODE;

-- CreateTable
CREATE TABLE "OutboxEntry" (
    "eventId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "sequence" BIGINT NOT NULL,

    CONSTRAINT "OutboxEntry_pkey" PRIMARY KEY ("eventId")
);

-- CreateIndex
CREATE INDEX "OutboxEntry_createdAt_sequence_idx" ON "OutboxEntry"("createdAt", "sequence");

-- Events committed before this migration and not dispatched yet stay queued.
INSERT INTO "OutboxEntry" ("eventId", "createdAt", "sequence")
SELECT id, "createdAt", sequence FROM "Event" WHERE "dispatchedAt" IS NULL;

-- Every event row, whatever inserts it, is queued by the same statement (one trigger call per statement).
CREATE FUNCTION outbox_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "OutboxEntry" ("eventId", "createdAt", "sequence") SELECT id, "createdAt", sequence FROM new_events;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Event_outbox_enqueue" AFTER INSERT ON "Event" REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_enqueue();

-- The index on dispatchedAt goes (nothing looks events up by it any more). The column stays, no longer written, for
-- instances still running the previous release during a rolling upgrade: their ORM reads it, and their dispatcher
-- still claims by it (it fans out again what this release already did: webhook dispatches are unique per event, and
-- subscribers drop repeated event ids). A later migration drops it.

-- DropIndex
DROP INDEX "Event_dispatchedAt_createdAt_idx";
