package dataset

import (
	"errors"
	"strings"
	"testing"
)

func TestWhereCodeBuilt(t *testing.T) {
	d := &Dataset{Users: []User{{Username: "zed"}}}
	if file, entry := d.Where("users", 0); file != "" || entry != `users[0] (username "zed")` {
		t.Errorf("Where = %q, %q", file, entry)
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{File: "event.yaml", Entry: `challenges[2] (slug "baby-rsa")`, Field: "points", Msg: "must be a non-negative integer"}
	if got, want := e.Error(), `event.yaml: challenges[2] (slug "baby-rsa"): points: must be a non-negative integer`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (&Error{File: "x.yaml", Msg: "boom"}).Error(); got != "x.yaml: boom" {
		t.Errorf("Error() = %q", got)
	}
}

func TestDecodeJoinsAllErrors(t *testing.T) {
	_, err := Decode([]byte("reviews:\n  - {user: a, challenge: x, stars: 0, difficulty: 11}\n"), "r.yaml")
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		fields = append(fields, e.(*Error).Field)
	}
	if strings.Join(fields, ",") != "stars,difficulty" {
		t.Errorf("fields = %v (%v)", fields, err)
	}
	if !strings.Contains(err.Error(), "r.yaml: reviews[0]: stars: must be an integer from 1 to 5") {
		t.Errorf("err = %v", err)
	}
}

func TestSlugify(t *testing.T) {
	tests := map[string]string{
		"Baby RSA":                "baby-rsa",
		"  --Hello, World!--":     "hello-world",
		"Dyn: 2":                  "dyn-2",
		"Crème brûlée":            "cr-me-br-l-e",
		"日本語":                     "",
		strings.Repeat("ab ", 30): strings.TrimSuffix(strings.Repeat("ab-", 21), "-") + "-a",
	}
	for in, want := range tests {
		if got := Slugify(in); got != want || len(got) > 64 {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMergeAndIndexes(t *testing.T) {
	a, err := Decode([]byte("users: [{username: alice}]\nchallenges:\n"+chal("x")), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode([]byte(`{"users": [{"username": "bob"}]}`), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	a.Merge(b)
	if a.UserIndex("bob") != 1 || a.UserIndex("carol") != -1 || a.ChallengeIndex("x") != 0 {
		t.Errorf("indexes wrong: %+v", a)
	}
	if file, entry := a.Where("users", 1); file != "b.json" || entry != `users[0] (username "bob")` {
		t.Errorf("Where = %q, %q", file, entry)
	}
	if file, entry := a.Where("solves", 5); file != "" || entry != "solves[5]" {
		t.Errorf("Where out of range = %q, %q", file, entry)
	}
}

// TestDescriptionAtTheLimit: a description of 65,536 characters (not
// bytes) is the longest accepted; one more is refused naming the field.
func TestDescriptionAtTheLimit(t *testing.T) {
	for n, ok := range map[int]bool{65536: true, 65537: false} {
		_, err := Decode([]byte("challenges:\n"+chal("x", "description: "+strings.Repeat("é", n))), "d.yaml")
		var e *Error
		switch {
		case ok && err != nil:
			t.Errorf("%d characters: %v", n, err)
		case !ok && (!errors.As(err, &e) || e.Field != "description" || !strings.Contains(e.Msg, "65,536")):
			t.Errorf("%d characters: %v; want an error on description saying at most 65,536", n, err)
		}
	}
}

// TestBanReason: a user's banReason rides with banned, trimmed, at most
// 500 characters; without banned it is an error, not silently dropped.
func TestBanReason(t *testing.T) {
	d, err := Decode([]byte("users:\n  - {username: pam, banned: true, banReason: '  shared flags  '}\n"), "u.yaml")
	if err != nil || d.Users[0].BanReason != "shared flags" {
		t.Fatalf("decoded %+v, %v", d, err)
	}
	for doc, want := range map[string]string{
		"users:\n  - {username: pam, banReason: spam}\n":                                           `u.yaml: users[0] (username "pam"): banReason: is the reason of a ban: set banned: true, or leave it out`,
		"users:\n  - {username: pam, banned: true, banReason: " + strings.Repeat("x", 501) + "}\n": `u.yaml: users[0] (username "pam"): banReason: must be at most 500 characters`,
	} {
		if _, err := Decode([]byte(doc), "u.yaml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60s: %v, want %s", doc, err, want)
		}
	}
}
