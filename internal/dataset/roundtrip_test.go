package dataset

import (
	"bytes"
	"encoding/base64"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

func stripSources(d *Dataset) *Dataset {
	c := *d
	c.Users = append([]User(nil), d.Users...)
	c.Challenges = append([]Challenge(nil), d.Challenges...)
	c.Solves = append([]Solve(nil), d.Solves...)
	c.Attempts = append([]Attempt(nil), d.Attempts...)
	c.Writeups = append([]Writeup(nil), d.Writeups...)
	c.Reviews = append([]Review(nil), d.Reviews...)
	c.HintUnlocks = append([]HintUnlock(nil), d.HintUnlocks...)
	for i := range c.HintUnlocks {
		c.HintUnlocks[i].Source = Source{}
	}
	c.Announcements = append([]Announcement(nil), d.Announcements...)
	c.Webhooks = append([]Webhook(nil), d.Webhooks...)
	for i := range c.Webhooks {
		c.Webhooks[i].Source = Source{}
	}
	if d.Event != nil {
		e := *d.Event
		e.Source = Source{}
		c.Event = &e
	}
	for i := range c.Announcements {
		c.Announcements[i].Source = Source{}
	}
	for i := range c.Users {
		c.Users[i].Source = Source{}
	}
	for i := range c.Challenges {
		c.Challenges[i].Source = Source{}
	}
	for i := range c.Solves {
		c.Solves[i].Source = Source{}
	}
	for i := range c.Attempts {
		c.Attempts[i].Source = Source{}
	}
	for i := range c.Writeups {
		c.Writeups[i].Source = Source{}
	}
	for i := range c.Reviews {
		c.Reviews[i].Source = Source{}
	}
	return &c
}

// dumpLike is a Dataset as the database would produce it for `flagship dump`.
func dumpLike(dir string) *Dataset {
	tricky := []string{"yes", "null", "100", "2026-01-01", "line1\n  line2\n\n", "trailing ", " leading",
		"tab\there", "#hash", "- dash", "ü 🚩", `quote"s 'and'`, "a: b", "</script>&", "\u2028x", "~",
		strings.Repeat("long words ", 40), "{flow}", "[x]", "*alias", "&anchor", "!tag", "%pct", "@at", "`tick`"}
	content := []byte("\x00\x01binary handout\n")
	return &Dataset{
		Event: &Event{Name: "yes", Start: ts("2026-01-05T09:00:00Z"), End: ts("2026-01-07T09:00:00.500Z"),
			Freeze: ts("2026-01-07T08:00:00Z"), UnfreezeAtEnd: true, Unfrozen: ts("2026-01-07T08:30:00.001Z"), Practice: true,
			FlagFormat: "flag{...}"},
		Users: []User{
			{ID: "01947c7e-0000-7000-8000-000000000001", Username: "alice", Name: strings.Join(tricky, "|"),
				Email: "Alice@Example.com", PasswordHash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g", Role: ctf.RoleAdmin,
				CreatedAt: ts("2026-01-01T00:00:00.123Z"),
				APIKeys: []APIKey{{ID: "k1", Name: "ci", KeyPrefix: "fs_abcd", KeyHash: "deadbeef",
					CreatedAt: ts("2026-01-02T03:04:05.678Z"), LastUsedAt: ts("2026-01-03T00:00:00.001Z"),
					RevokedAt: ts("2026-01-04T00:00:00Z")}},
				TwoFactor: &TwoFactor{Secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", LastStep: 59000000,
					RecoveryCodes: []string{strings.Repeat("ab", 32), strings.Repeat("0f", 32)}}},
			{ID: "u2", Username: "bob.b-_", Password: "100", Role: ctf.RolePlayer, Banned: true},
		},
		Challenges: []Challenge{
			{ID: "c1", Slug: "baby-rsa", Title: "2048", Description: strings.Join(tricky, "\n"),
				Categories: []string{"crypto", "yes"}, Difficulty: ctf.Insane, Points: 0, Type: "standard",
				Flags: []Flag{{"static", "flag{a: b}", ""}, {"static", "null", "case_insensitive"},
					{"regex", `  flag\{[0-9a-f]{8}\} `, ""}},
				Requires: []string{"warmup", "not-in-dataset"}, Author: "alice",
				File:        &File{Name: "handout.bin", SHA256: "", ContentBase64: base64.StdEncoding.EncodeToString(content)},
				HasInstance: true, DockerPort: intp(65535), Hidden: true, Tags: []string{"rsa", "true"},
				Hints:          []Hint{{ID: 1, Content: strings.Join(tricky, "\n")}, {ID: 7, Content: "yes", Cost: 25, Requires: 1}},
				ConnectionInfo: "nc host 1337", CreatedAt: ts("2026-01-01T10:00:00.999Z")},
			{ID: "c2", Slug: "warmup", Title: "Warm-up", Categories: []string{"misc"}, Difficulty: ctf.Easy, Points: 50,
				Type: "dynamic", Flags: []Flag{{"static", "ok", ""}}, ReleaseAt: ts("2026-01-06T00:00:00.250Z"),
				File: &File{Name: "link.zip", URL: "https://example.com/a/link.zip"}},
			{ID: "c3", Slug: "local", Title: "Local", Categories: []string{"web"}, Difficulty: ctf.Medium, Points: 300,
				Scoring: &Scoring{Type: ctf.DynamicScoring, Initial: 300, Decay: 12, Function: ctf.Linear},
				Type:    "standard", Flags: []Flag{{"static", "x", ""}},
				File: &File{Name: "renamed.txt", Path: filepath.Join(dir, "files", "f.txt"), Root: dir}},
		},
		Solves: []Solve{{ID: "s1", User: "alice", Challenge: "baby-rsa", At: ts("2026-01-05T10:00:00.001Z"), Flag: "flag{a: b}"},
			{ID: "s2", User: "bob.b-_", Challenge: "warmup", At: ts("2026-01-08T10:00:00Z"), Flag: "ok", Practice: true}},
		Attempts: []Attempt{{ID: "a1", User: "bob.b-_", Challenge: "baby-rsa", At: ts("2026-01-05T10:01:00.5Z"), Flag: " spaced \n"},
			{ID: "a2", User: "alice", Challenge: "warmup", At: ts("2026-01-08T10:01:00Z"), Flag: "no", Practice: true}},
		Writeups: []Writeup{{ID: "w1", User: "alice", Challenge: "baby-rsa", Title: "yes", Content: strings.Join(tricky, "\n"),
			Status: ctf.WriteupRejected, Images: []string{"https://img/1.png"}, CreatedAt: ts("2026-01-05T12:00:00.010Z"),
			UpdatedAt: ts("2026-01-06T12:00:00.020Z")}},
		Reviews: []Review{{ID: "r1", User: "alice", Challenge: "baby-rsa", Stars: 1, Difficulty: 10,
			CreatedAt: ts("2026-01-05T12:05:00.300Z")}},
		HintUnlocks: []HintUnlock{{User: "alice", Challenge: "baby-rsa", Hint: 1, At: ts("2026-01-05T09:59:00.001Z"), Charged: boolp(true)},
			{User: "alice", Challenge: "baby-rsa", Hint: 7, At: ts("2026-01-05T11:00:00Z"), Charged: boolp(false)},
			{User: "bob.b-_", Challenge: "baby-rsa", Hint: 1}},
		Announcements: []Announcement{
			{ID: "n1", Title: "null", Body: strings.TrimSpace(strings.Join(tricky, "\n")), Challenge: "baby-rsa", Author: "alice",
				CreatedAt: ts("2026-01-05T11:00:00.007Z")},
			{ID: "n2", Title: "2026-01-01", CreatedAt: ts("2026-01-05T11:30:00Z")},
		},
		Webhooks: []Webhook{
			{ID: "h1", Name: "yes", Kind: ctf.WebhookJSON, URL: "https://hooks.example.com/a?b=c&d=%20", Secret: "null-" + strings.Repeat("s", 20),
				Events: []ctf.WebhookEvent{"firstBlood", "ended"}, Enabled: true, CreatedAt: ts("2026-01-02T00:00:00.004Z")},
			{ID: "h2", Name: "Discord", Kind: ctf.WebhookDiscord, URL: "https://discord.com/api/webhooks/1/x", Enabled: false},
		},
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "files/f.txt", "local file")
	orig := dumpLike(dir)
	orig.Challenges[0].File.SHA256 = "" // filled in by Decode from contentBase64
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Encode(&buf, orig, format); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, "dump."+format)
			first, err := Decode(buf.Bytes(), name)
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			if first.Challenges[0].File.SHA256 == "" {
				t.Fatal("sha256 not computed from contentBase64")
			}
			if format == "json" && !strings.Contains(buf.String(), "{\n  \"event\": {\n    \"name\"") {
				t.Errorf("JSON not indented by 2 spaces:\n%.200s", buf.String())
			}
			// Encode what was decoded and decode again: equal, Source included.
			buf.Reset()
			if err := Encode(&buf, first, format); err != nil {
				t.Fatal(err)
			}
			second, err := Decode(buf.Bytes(), name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(first, second) {
				t.Errorf("round trip differs:\n%+v\n%+v\n%s", first, second, buf.String())
			}
			want := dumpLike(dir)
			want.Challenges[0].File.SHA256 = first.Challenges[0].File.SHA256
			if got := stripSources(first); !reflect.DeepEqual(got, want) {
				t.Errorf("decoded dump differs from the original:\n%+v\n%+v", got, want)
			}
		})
	}
	if _, err := Decode(nil, "empty.yaml"); err != nil {
		t.Errorf("empty document: %v", err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, &Dataset{}, "yaml"); err != nil {
		t.Fatal(err)
	}
	if d, err := Decode(buf.Bytes(), "e.yaml"); err != nil || !reflect.DeepEqual(d, &Dataset{}) {
		t.Errorf("empty round trip: %+v, %v (%q)", d, err, buf.String())
	}
	if err := Encode(&buf, orig, "xml"); err == nil {
		t.Error("Encode accepted format xml")
	}
}
