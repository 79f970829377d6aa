package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// column is a column as a database's catalog describes it.
type column struct {
	name, typ string
	notNull   bool
}

func (c column) String() string {
	if c == (column{}) {
		return "no column"
	}
	null := "NULL"
	if c.notNull {
		null = "NOT NULL"
	}
	return fmt.Sprintf("%s %s %s", c.name, c.typ, null)
}

// sqliteTables reads the tables of an SQLite store and their columns, in
// their order, from its catalog.
func sqliteTables(t *testing.T, s *SQLite) map[string][]column {
	t.Helper()
	ctx := context.Background()
	names, err := ids(sqliteRunner{db: s.r}.query(ctx,
		`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`))
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string][]column{}
	for _, name := range names {
		rows, err := s.r.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`, name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c column
			var pk int
			if err := rows.Scan(&c.name, &c.typ, &c.notNull, &pk); err != nil {
				t.Fatal(err)
			}
			// SQLite lets a primary key other than an INTEGER one hold
			// NULL, for old programs' sake; the store never writes one.
			c.notNull = c.notNull || pk > 0
			tables[name] = append(tables[name], c)
		}
		if err := closeRows(rows); err != nil {
			t.Fatal(err)
		}
	}
	return tables
}

// postgresTables is sqliteTables for PostgreSQL, with each type named as
// SQLite's type for it.
func postgresTables(t *testing.T, p *Postgres) map[string][]column {
	t.Helper()
	rows, err := p.pool.Query(context.Background(), `SELECT table_name, column_name, data_type, is_nullable = 'NO'
		FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	// A time is text in SQLite, a boolean 0 or 1.
	sqliteType := map[string]string{"text": "TEXT", "timestamp with time zone": "TEXT", "integer": "INTEGER",
		"bigint": "INTEGER", "boolean": "INTEGER", "double precision": "REAL"}
	tables := map[string][]column{}
	for rows.Next() {
		var table, typ string
		var c column
		if err := rows.Scan(&table, &c.name, &typ, &c.notNull); err != nil {
			t.Fatal(err)
		}
		var ok bool
		if c.typ, ok = sqliteType[typ]; !ok {
			t.Errorf("%s.%s: PostgreSQL type %s has no SQLite counterpart here", table, c.name, typ)
			c.typ = typ
		}
		tables[table] = append(tables[table], c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return tables
}

// The two engines' schemas have the same tables with the same columns, in
// the same order, of corresponding types and nullability, but for what
// each engine does its own way.
func TestSchemasAlike(t *testing.T) {
	lite := open(t, filepath.Join(t.TempDir(), "games.db"))
	defer lite.Close()
	pg := openPostgres(t, newPostgresDB(t))
	got, want := postgresTables(t, pg), sqliteTables(t, lite)

	// PostgreSQL keeps the schema version in a table (SQLite in PRAGMA
	// user_version) and the order of creation in games.seq (SQLite in
	// the rowid).
	delete(got, "schema_version")
	got["games"] = slices.DeleteFunc(got["games"], func(c column) bool { return c.name == "seq" })
	// A clock that does not run has no turn start: NULL in PostgreSQL,
	// '' in SQLite.
	for i, c := range got["online"] {
		if c.name == "turn_start" && !c.notNull {
			got["online"][i].notNull = true
		}
	}

	for table, cols := range want {
		if _, ok := got[table]; !ok {
			t.Errorf("table %s is in SQLite's schema only", table)
			continue
		}
		for i := range max(len(cols), len(got[table])) {
			var a, b column
			if i < len(cols) {
				a = cols[i]
			}
			if i < len(got[table]) {
				b = got[table][i]
			}
			if a != b {
				t.Errorf("%s, column %d: SQLite has %q, PostgreSQL %q", table, i+1, a, b)
			}
		}
	}
	for table := range got {
		if _, ok := want[table]; !ok {
			t.Errorf("table %s is in PostgreSQL's schema only", table)
		}
	}
	if len(want) < 6 {
		t.Errorf("SQLite's schema has %d tables, want at least series, games, moves, online, meta and reviews", len(want))
	}
}
