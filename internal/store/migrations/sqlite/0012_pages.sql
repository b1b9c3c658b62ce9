-- The event's pages: Markdown texts an admin writes (ctf.PageNames). A
-- page without a row, or with an empty text, is not shown.
CREATE TABLE pages (
	name       TEXT PRIMARY KEY CHECK (name IN ('landing', 'rules', 'faq')),
	text       TEXT NOT NULL,
	updated_at INTEGER NOT NULL
);

-- The event's logo: one image (PNG, JPEG, GIF or WebP, checked by its
-- content), absent until an admin uploads one.
CREATE TABLE event_logo (
	id           INTEGER PRIMARY KEY CHECK (id = 1),
	content_type TEXT NOT NULL,
	sha256       TEXT NOT NULL,
	data         BLOB NOT NULL,
	updated_at   INTEGER NOT NULL
);
