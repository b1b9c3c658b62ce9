-- Usernames are unique ignoring case, so a log-in or a profile looked up
-- by name finds one account. lower() folds ASCII letters only, which is
-- all the username rule allows (ctf.FoldUsername is the same key). Before
-- this runs, Migrate names the usernames that clash (checkUsernameCase).
CREATE UNIQUE INDEX users_username_lower ON users (lower(username));

-- Sign-ups per client address, for the sign-up limit: in the database, so
-- it holds across replicas. A row is reserved before the account is made
-- and taken back if it is not.
CREATE TABLE signups (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	address TEXT NOT NULL,
	at      INTEGER NOT NULL
);
CREATE INDEX signups_address ON signups (address, at);
