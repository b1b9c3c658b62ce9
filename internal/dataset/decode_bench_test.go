package dataset

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// benchDataset is a dump-shaped dataset: users with API keys, challenges,
// and many solves and attempts, the bulk of a real event's dump.
func benchDataset(users, challenges, submissions int) *Dataset {
	at := time.Date(2026, 1, 5, 10, 0, 0, 123456789, time.UTC)
	ds := &Dataset{Event: &Event{Name: "Bench CTF", Start: &at, FlagFormat: "flag{...}"}}
	for i := range users {
		u := User{ID: fmt.Sprintf("u%06d", i), Username: fmt.Sprintf("player%d", i), Name: fmt.Sprintf("Player %d", i),
			Email: fmt.Sprintf("p%d@example.org", i), PasswordHash: "$argon2id$v=19$m=65536,t=1,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo",
			Role: ctf.RolePlayer, CreatedAt: &at}
		if i%10 == 0 {
			u.APIKeys = []APIKey{{ID: fmt.Sprintf("k%06d", i), Name: "agent", KeyPrefix: "fsk_abcd", KeyHash: "0123456789abcdef", CreatedAt: &at}}
		}
		ds.Users = append(ds.Users, u)
	}
	for i := range challenges {
		ds.Challenges = append(ds.Challenges, Challenge{ID: fmt.Sprintf("c%04d", i), Slug: fmt.Sprintf("chal-%d", i),
			Title: fmt.Sprintf("Chal %d", i), Description: "Find the flag.", Categories: []string{"web"}, Difficulty: ctf.Easy,
			Points: 100, Type: "standard", Flags: []Flag{{Type: "static", Content: fmt.Sprintf("flag{%d}", i)}},
			Tags: []string{"intro"}, CreatedAt: &at})
	}
	for i := range submissions {
		a := Attempt{ID: fmt.Sprintf("s%08d", i), User: fmt.Sprintf("player%d", i%users),
			Challenge: fmt.Sprintf("chal-%d", i%challenges), At: &at, Flag: fmt.Sprintf("flag{%d}", i%challenges), Door: ctf.DoorAPI}
		ds.Solves = append(ds.Solves, Solve(a))
		a.Flag = "flag{wrong}"
		ds.Attempts = append(ds.Attempts, a)
	}
	return ds
}

// BenchmarkDecode measures decoding a dump (without validation), the bulk
// of `flagship load`'s time before the database.
func BenchmarkDecode(b *testing.B) {
	ds := benchDataset(2000, 50, 20000)
	for _, format := range []string{"yaml", "json"} {
		var buf bytes.Buffer
		if err := Encode(&buf, ds, format); err != nil {
			b.Fatal(err)
		}
		data, name := buf.Bytes(), "bench."+format
		b.Run(format, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				got, errs := decodeStream(bytesOpener(data), name, false)
				if len(errs) > 0 || len(got.Solves) != 20000 {
					b.Fatal(errs)
				}
			}
		})
	}
}

// BenchmarkDecodeEntries measures the walk from parsed nodes to entries
// alone, without the YAML parser, whose cost hides it in BenchmarkDecode.
func BenchmarkDecodeEntries(b *testing.B) {
	var buf bytes.Buffer
	if err := Encode(&buf, benchDataset(2000, 50, 20000), "yaml"); err != nil {
		b.Fatal(err)
	}
	root, err := parse(buf.Bytes(), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d := newDecoder("bench.yaml", false)
		ds := &Dataset{}
		for i := 0; i+1 < len(root.Content); i += 2 {
			d.topValue(ds, root.Content[i].Value, root.Content[i+1])
		}
		if len(d.errs) > 0 || len(ds.Solves) != 20000 {
			b.Fatal(d.errs)
		}
	}
}
