/// The names and fixed SQL of what the replica keeps in a PostgreSQL database beside the
/// entities' tables: schema `logbook_sync` (the article *Syncing with PostgreSQL* describes each
/// table). The one place these names are written.
enum SyncCatalog {
    /// The layout of schema `logbook_sync` this code reads and writes
    /// (`logbook_sync.database.format`).
    static let format = 1
    /// The schema of the sync tables.
    static let schema = "logbook_sync"
    /// The channel `NOTIFY` wakes replicas on after every commit that records changes.
    static let channel = "logbook_sync"
    /// The advisory lock every writer of a synced table takes first ("Logbook1"), so change
    /// positions are given in commit order.
    static let lock: Int64 = 5_507_734_541_771_434_801
    /// The setting that tells the capture triggers a replica is writing (its origin number).
    static let originSetting = "logbook_sync.origin"
    /// Identifiers come in blocks of 2^40: block 0 holds the objects a store had before it first
    /// synced, block 1 the rows SQL clients insert without an id, block `origin + 1` the objects
    /// replica `origin` inserts.
    static let blockBits: UInt64 = 40

    /// The first identifier of replica `origin`'s block.
    static func blockStart(origin: Int32) -> UInt64 { UInt64(origin + 1) << blockBits }

    /// The name of `entity`'s capture function in schema `logbook_sync` (a hash stands in for
    /// names too long for PostgreSQL's 63-byte identifiers).
    static func captureFunction(_ entity: String) -> String {
        let name = "capture " + entity
        if name.utf8.count <= 63 { return "\(schema).\(PostgreSQLTable.identifier(name))" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in entity.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return "\(schema).\"capture \(String(hash, radix: 16))\""
    }

    /// The names of the two triggers on every synced table.
    static let captureTrigger = "logbook_sync_capture"
    static let lockTrigger = "logbook_sync_lock"

    /// The tables, sequences and functions every synced database has, created if missing.
    /// `identifier` names a newly made database.
    static func baseSQL(databaseIdentifier identifier: String) -> String {
        """
        CREATE SCHEMA IF NOT EXISTS logbook_sync;
        CREATE TABLE IF NOT EXISTS logbook_sync.database (
          id uuid NOT NULL,
          format integer NOT NULL,
          seed_store uuid,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        INSERT INTO logbook_sync.database (id, format)
          SELECT '\(identifier)', \(format) WHERE NOT EXISTS (SELECT 1 FROM logbook_sync.database);
        CREATE SEQUENCE IF NOT EXISTS logbook_sync.origins AS integer;
        CREATE TABLE IF NOT EXISTS logbook_sync.replicas (
          origin integer PRIMARY KEY,
          store uuid NOT NULL UNIQUE,
          name text NOT NULL,
          up_sequence bigint NOT NULL DEFAULT 0,
          up_clock bigint NOT NULL DEFAULT 0,
          up_knowledge bigint NOT NULL DEFAULT 0,
          down_position bigint NOT NULL DEFAULT 0,
          joined_at timestamptz NOT NULL DEFAULT now(),
          seen_at timestamptz,
          last_error text,
          last_error_at timestamptz
        );
        CREATE SEQUENCE IF NOT EXISTS logbook_sync.positions;
        CREATE SEQUENCE IF NOT EXISTS logbook_sync.sql_ids
          MINVALUE \(1 << blockBits) MAXVALUE \((2 << blockBits) - 1) START \(1 << blockBits);
        CREATE TABLE IF NOT EXISTS logbook_sync.changes (
          position bigint PRIMARY KEY,
          xact bigint NOT NULL,
          origin integer NOT NULL,
          sequence bigint,
          echo boolean NOT NULL,
          target integer,
          author text NOT NULL,
          entity text,
          id bigint,
          op "char" NOT NULL,
          columns text[],
          "values" text[],
          stamp bigint NOT NULL,
          committed_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX IF NOT EXISTS changes_marker ON logbook_sync.changes (origin, sequence)
          WHERE op = 'm';
        CREATE TABLE IF NOT EXISTS logbook_sync.rows (
          entity text NOT NULL,
          id bigint NOT NULL,
          deleted boolean NOT NULL DEFAULT false,
          position bigint NOT NULL,
          writer integer NOT NULL,
          stamps bigint[] NOT NULL,
          writers integer[] NOT NULL,
          PRIMARY KEY (entity, id)
        );
        CREATE TABLE IF NOT EXISTS logbook_sync.tables (
          entity text PRIMARY KEY,
          columns text[] NOT NULL
        );
        CREATE TABLE IF NOT EXISTS logbook_sync.clock (hlc bigint NOT NULL);
        INSERT INTO logbook_sync.clock SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM logbook_sync.clock);

        CREATE OR REPLACE FUNCTION logbook_sync.transaction_stamp() RETURNS bigint
        LANGUAGE plpgsql AS $logbook_sync$
        DECLARE
          kept text := current_setting('logbook_sync.stamp', true);
          xact text := txid_current()::text;
          stamp bigint;
        BEGIN
          IF kept IS NOT NULL AND split_part(kept, ':', 1) = xact THEN
            RETURN split_part(kept, ':', 2)::bigint;
          END IF;
          PERFORM pg_advisory_xact_lock(\(lock));
          UPDATE logbook_sync.clock SET hlc = greatest(hlc + 1,
              floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint << 16)
            RETURNING hlc INTO stamp;
          PERFORM set_config('logbook_sync.stamp', xact || ':' || stamp, true);
          PERFORM pg_notify('\(channel)', '');
          RETURN stamp;
        END $logbook_sync$;

        CREATE OR REPLACE FUNCTION logbook_sync.capture(
            e text, i bigint, op "char", names text[], places integer[], vals text[])
          RETURNS void LANGUAGE plpgsql AS $logbook_sync$
        DECLARE
          stamp bigint := logbook_sync.transaction_stamp();
          pos bigint := nextval('logbook_sync.positions');
          s bigint[];
          w integer[];
          dead boolean;
          needed integer;
        BEGIN
          SELECT r.stamps, r.writers, r.deleted INTO s, w, dead
            FROM logbook_sync.rows r WHERE r.entity = e AND r.id = i FOR UPDATE;
          IF op = 'i' AND dead THEN
            RAISE EXCEPTION 'logbook sync: % % was deleted, and an identifier is never used again', e, i
              USING HINT = 'Insert the row with another id, or without one (the column default gives one).';
          END IF;
          INSERT INTO logbook_sync.changes
              (position, xact, origin, echo, author, entity, id, op, columns, "values", stamp)
            VALUES (pos, txid_current(), 0, false, 'sql:' || session_user, e, i, op, names, vals, stamp);
          IF op = 'd' THEN
            INSERT INTO logbook_sync.rows (entity, id, deleted, position, writer, stamps, writers)
              VALUES (e, i, true, pos, 0, '{}', '{}')
              ON CONFLICT (entity, id) DO UPDATE SET deleted = true, position = pos, writer = 0;
            RETURN;
          END IF;
          -- Arrays of every place from 1 (assigning past the end of an empty array would
          -- start it at that place instead).
          needed := greatest(coalesce(cardinality(s), 0), (SELECT max(p) FROM unnest(places) p));
          s := coalesce(s, '{}') || array_fill(NULL::bigint, ARRAY[needed - coalesce(cardinality(s), 0)]);
          w := coalesce(w, '{}') || array_fill(NULL::integer, ARRAY[needed - coalesce(cardinality(w), 0)]);
          FOR k IN 1 .. coalesce(cardinality(places), 0) LOOP
            s[places[k]] := stamp;
            w[places[k]] := 0;
          END LOOP;
          INSERT INTO logbook_sync.rows (entity, id, deleted, position, writer, stamps, writers)
            VALUES (e, i, false, pos, 0, s, w)
            ON CONFLICT (entity, id) DO UPDATE SET position = pos, writer = 0, stamps = s, writers = w;
        END $logbook_sync$;

        CREATE OR REPLACE FUNCTION logbook_sync.statement_lock() RETURNS trigger
        LANGUAGE plpgsql AS $logbook_sync$
        BEGIN
          IF TG_OP = 'TRUNCATE' THEN
            RAISE EXCEPTION 'logbook sync: TRUNCATE of % would not reach the stores', TG_TABLE_NAME
              USING HINT = 'DELETE the rows instead.';
          END IF;
          PERFORM pg_advisory_xact_lock(\(lock));
          RETURN NULL;
        END $logbook_sync$;

        """
    }

    /// The capture function and the two triggers of `entity`'s table, whose synced columns
    /// are `columns` in `logbook_sync.tables` order (a stamp's place is its column's). An SQL
    /// client's delete also applies the delete rules of `schema` (``SyncDeleteRules``).
    static func triggerSQL(_ entity: Entity, in schema: Schema, columns: [String]) -> String {
        let table = PostgreSQLTable.identifier(entity.name)
        let name = literal(entity.name)
        let fields = entity.storedFields.attributes
        let joins = PostgreSQLJoinTable.all(of: entity)
        var body = ""
        for (i, field) in fields.enumerated() where !joins.contains(where: { $0.field == i }) {
            guard let place = columns.firstIndex(of: field.name) else { continue }
            let column = "NEW.\(PostgreSQLTable.identifier(field.name))"
            body += """
                  IF TG_OP = 'INSERT' OR \(column) IS DISTINCT FROM OLD.\(PostgreSQLTable.identifier(field.name)) THEN
                    names := names || \(literal(field.name))::text;
                    places := places || \(place + 1);
                    vals := vals || (\(CanonicalText.expression(column, field)));
                  END IF;

                """
        }
        let function = captureFunction(entity.name)
        return """
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger
            LANGUAGE plpgsql AS $logbook_sync$
            DECLARE
              names text[] := '{}';
              places integer[] := '{}';
              vals text[] := '{}';
            BEGIN
              IF coalesce(current_setting('\(originSetting)', true), '') <> '' THEN
                RETURN NULL;
              END IF;
              IF TG_OP = 'DELETE' THEN
                PERFORM logbook_sync.capture(\(name), OLD."id", 'd', NULL, NULL, NULL);
            \(SyncDeleteRules.sql(entity, in: schema))    RETURN NULL;
              END IF;
              IF TG_OP = 'UPDATE' AND NEW."id" IS DISTINCT FROM OLD."id" THEN
                RAISE EXCEPTION 'logbook sync: the id of a row of % cannot change (% to %)',
                  TG_TABLE_NAME, OLD."id", NEW."id";
              END IF;
            \(body)  IF cardinality(names) > 0 THEN
                PERFORM logbook_sync.capture(\(name), NEW."id",
                  (CASE WHEN TG_OP = 'INSERT' THEN 'i' ELSE 'u' END)::"char", names, places, vals);
              END IF;
              RETURN NULL;
            END $logbook_sync$;
            CREATE OR REPLACE TRIGGER \(captureTrigger) AFTER INSERT OR UPDATE OR DELETE ON \(table)
              FOR EACH ROW EXECUTE FUNCTION \(function)();
            CREATE OR REPLACE TRIGGER \(lockTrigger) BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE
              ON \(table) FOR EACH STATEMENT EXECUTE FUNCTION logbook_sync.statement_lock();

            """
                + joins.compactMap { join in
                    columns.firstIndex(of: join.relationship).map {
                        joinTriggerSQL(join, place: $0 + 1)
                    }
                }.joined()
    }

    /// The capture function and triggers of a many-to-many's join table: a link an SQL client
    /// adds or removes records, in the change log, the new set of links of the object that
    /// stores them (if that object is in its table), at `place`.
    static func joinTriggerSQL(_ join: PostgreSQLJoinTable, place: Int) -> String {
        let function = captureFunction(join.name)
        let table = PostgreSQLTable.identifier(join.entity)
        func capture(_ row: String) -> String {
            """
                IF EXISTS (SELECT 1 FROM \(table) WHERE "id" = \(row).\(join.owner)) THEN
                  PERFORM logbook_sync.capture(\(literal(join.entity)), \(row).\(join.owner), 'u',
                    ARRAY[\(literal(join.relationship))]::text[], ARRAY[\(place)],
                    ARRAY[\(join.linksExpression(of: "\(row).\(join.owner)"))]::text[]);
                END IF;

            """
        }
        return """
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger
            LANGUAGE plpgsql AS $logbook_sync$
            BEGIN
              IF coalesce(current_setting('\(originSetting)', true), '') <> '' THEN
                RETURN NULL;
              END IF;
              IF TG_OP <> 'INSERT' THEN
            \(capture("OLD"))  END IF;
              IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.\(join.owner) IS DISTINCT FROM OLD.\(join.owner)) THEN
            \(capture("NEW"))  END IF;
              RETURN NULL;
            END $logbook_sync$;
            CREATE OR REPLACE TRIGGER \(captureTrigger) AFTER INSERT OR UPDATE OR DELETE ON \(join.table)
              FOR EACH ROW EXECUTE FUNCTION \(function)();
            CREATE OR REPLACE TRIGGER \(lockTrigger) BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE
              ON \(join.table) FOR EACH STATEMENT EXECUTE FUNCTION logbook_sync.statement_lock();

            """
    }

    /// A single-quoted SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
