-- The PostgreSQL twin of migrations/sqlite/0012_pages.sql.
CREATE TABLE pages (
	name       text COLLATE "C" PRIMARY KEY CHECK (name IN ('landing', 'rules', 'faq')),
	text       text NOT NULL,
	updated_at bigint NOT NULL
);

CREATE TABLE event_logo (
	id           integer PRIMARY KEY CHECK (id = 1),
	content_type text NOT NULL,
	sha256       text NOT NULL,
	data         bytea NOT NULL,
	updated_at   bigint NOT NULL
);
