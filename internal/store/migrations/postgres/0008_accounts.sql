-- The PostgreSQL twin of migrations/sqlite/0008_accounts.sql. With the
-- column's collation "C", lower() folds ASCII letters only, as SQLite's.
CREATE UNIQUE INDEX users_username_lower ON users (lower(username));
