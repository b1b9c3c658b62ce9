-- Why a user is banned, as the admin gave it (at most 500 characters; ''
-- for none). Only a banned user has one: an unban clears it.
ALTER TABLE users ADD COLUMN ban_reason TEXT NOT NULL DEFAULT '';
