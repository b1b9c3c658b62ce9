package platform

import (
	"context"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// LogPageSize is how many submissions a page of the log shows.
const LogPageSize = 50

// maxLogPage is the furthest page asked for: 50 million submissions.
const maxLogPage = 1_000_000

// LogQuery selects submissions of the log, as an admin types it: a
// username, a challenge's slug, a result ("correct", "wrong" or "" for
// both), and a page from 1.
type LogQuery struct {
	User, Challenge, Result string
	Page                    int
}

// LogEntry is one submission as the log shows it, with names for ids.
type LogEntry struct {
	At                 time.Time
	UserID, Username   string
	Slug, Title        string
	Correct, Practice  bool
	Door               ctf.Door
	KeyName, KeyPrefix string // the API key that sent it, "" for none
	// Flag is the text of a wrong flag; never a correct one, which is the
	// challenge's flag.
	Flag string
}

// SubmissionLog is one page of the log.
type SubmissionLog struct {
	Query   LogQuery
	Entries []LogEntry
	More    bool // a next page exists
}

// SubmissionLog returns a page of every recorded submission, newest first,
// filtered by q: for admins only. An unknown user or challenge is a clear
// error, not an empty page that would read as "no submissions".
func (s *Admin) SubmissionLog(ctx context.Context, v ctf.Viewer, q LogQuery) (SubmissionLog, error) {
	if !v.IsAdmin() {
		return SubmissionLog{}, ctf.ErrNotAdmin
	}
	// Past the last page is an empty page; the bound keeps the offset an
	// integer the database takes.
	q.Page = min(max(q.Page, 1), maxLogPage)
	f := store.LogFilter{Offset: (q.Page - 1) * LogPageSize, Limit: LogPageSize + 1}
	st := s.live.State()
	if q.User != "" {
		id, ok := st.Accounts().UserIDByName(q.User)
		if !ok {
			return SubmissionLog{Query: q}, ctf.FieldErrorf("user", "no user is named %q", q.User)
		}
		f.UserID = id
	}
	if q.Challenge != "" {
		c, ok := st.ChallengeBySlug(q.Challenge)
		if !ok {
			return SubmissionLog{Query: q}, ctf.FieldErrorf("challenge", "no challenge has the slug %q", q.Challenge)
		}
		f.ChallengeID = c.ID
	}
	switch q.Result {
	case "":
	case "correct", "wrong":
		correct := q.Result == "correct"
		f.Correct = &correct
	default:
		return SubmissionLog{Query: q}, ctf.FieldErrorf("result", "the result is correct, wrong or empty, not %q", q.Result)
	}
	recs, err := s.db.SubmissionLog(ctx, f)
	if err != nil {
		return SubmissionLog{Query: q}, fmt.Errorf("read the submission log: %w", err)
	}
	out := SubmissionLog{Query: q, More: len(recs) > LogPageSize}
	if out.More {
		recs = recs[:LogPageSize]
	}
	out.Entries = s.logEntries(recs)
	return out, nil
}

// logEntries names the users, challenges and keys of recs.
func (s *Admin) logEntries(recs []store.LogRecord) []LogEntry {
	st := s.live.State()
	keys := map[string]map[string]live.APIKeyView{}
	out := make([]LogEntry, 0, len(recs))
	for _, r := range recs {
		e := LogEntry{At: r.At, UserID: r.UserID, Correct: r.Correct, Practice: r.Practice, Door: r.Door}
		if u, ok := st.Accounts().User(r.UserID); ok {
			e.Username = u.Username
		}
		if c, ok := st.ChallengeByID(r.ChallengeID); ok {
			e.Slug, e.Title = c.Slug, c.Title
		}
		if !r.Correct {
			e.Flag = r.Flag
		}
		if r.KeyID != "" {
			byID, ok := keys[r.UserID]
			if !ok {
				byID = map[string]live.APIKeyView{}
				list, _ := st.Accounts().KeysOf(r.UserID)
				for _, k := range list {
					byID[k.ID] = k
				}
				keys[r.UserID] = byID
			}
			k := byID[r.KeyID]
			e.KeyName, e.KeyPrefix = k.Name, k.KeyPrefix
		}
		out = append(out, e)
	}
	return out
}
