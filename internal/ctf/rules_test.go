package ctf

import (
	"errors"
	"strings"
	"testing"
)

func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		field string // "" when valid
	}{
		{"username ok", ValidateUsername("alice_01.x-y"), ""},
		{"username empty", ValidateUsername(""), "username"},
		{"username short", ValidateUsername("ab"), "username"},
		{"username long", ValidateUsername(strings.Repeat("a", 33)), "username"},
		{"username space", ValidateUsername("al ice"), "username"},
		{"username unicode", ValidateUsername("alicé"), "username"},
		{"email ok", ValidateEmail("a@example.com"), ""},
		{"email empty", ValidateEmail(""), "email"},
		{"email display name", ValidateEmail("Alice <a@example.com>"), "email"},
		{"email no at", ValidateEmail("example.com"), "email"},
		{"email long", ValidateEmail(strings.Repeat("a", 250) + "@x.io"), "email"},
		{"password ok", ValidatePassword("correct horse", "alice"), ""},
		{"password 8 runes", ValidatePassword("éééééééé", "alice"), ""},
		{"password short", ValidatePassword("1234567", "alice"), "password"},
		{"password long", ValidatePassword(strings.Repeat("p", 129), "alice"), "password"},
		{"password is username", ValidatePassword("AliceBob", "alicebob"), "password"},
		{"name ok", ValidateDisplayName("Alice 🚩"), ""},
		{"name control", ValidateDisplayName("a\x00b"), "name"},
		{"name long", ValidateDisplayName(strings.Repeat("n", 65)), "name"},
		{"url empty", ValidateWebURL("image", ""), ""},
		{"url https", ValidateWebURL("image", "https://example.com/a.png"), ""},
		{"url javascript", ValidateWebURL("image", "javascript:alert(1)"), "image"},
		{"url data", ValidateWebURL("image", "data:image/png;base64,AAAA"), "image"},
		{"url relative", ValidateWebURL("image", "/a.png"), "image"},
		{"role admin", ValidateRole("admin"), ""},
		{"role root", ValidateRole("root"), "role"},
		{"slug ok", ValidateSlug("baby-rsa"), ""},
		{"slug upper", ValidateSlug("Baby"), "slug"},
		{"difficulty", ValidateDifficulty("easy"), "difficulty"},
		{"review ok", ValidateReview(5, 10), ""},
		{"review stars 0", ValidateReview(0, 5), "stars"},
		{"review difficulty 11", ValidateReview(3, 11), "difficulty"},
		{"writeup ok", ValidateWriteup("How", "I did it", []string{"https://i.example/x.png"}), ""},
		{"writeup no title", ValidateWriteup(" ", "x", nil), "title"},
		{"writeup no content", ValidateWriteup("t", "\n", nil), "content"},
		{"writeup big", ValidateWriteup("t", strings.Repeat("x", MaxWriteupContentBytes+1), nil), "content"},
		{"writeup image scheme", ValidateWriteup("t", "c", []string{"javascript:x"}), "images"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.field == "" {
				if tc.err != nil {
					t.Fatalf("refused: %v", tc.err)
				}
				return
			}
			if tc.err == nil {
				t.Fatal("accepted")
			}
			var e *Error
			if !errors.As(tc.err, &e) || e.Code != Invalid || e.Field != tc.field || !strings.HasPrefix(e.Message, tc.field+" ") {
				t.Fatalf("got %#v, want an Invalid error on %q", tc.err, tc.field)
			}
		})
	}
}

func TestValidateAgent(t *testing.T) {
	for _, c := range []struct {
		model, harness string
		role           Role
		field          string // "" when valid
	}{
		{"claude-sonnet-4-5", "react-loop", RolePlayer, ""},
		{"gpt-5", "", "", ""},
		{"", "harness", RolePlayer, "model"},
		{"   ", "", RolePlayer, "model"},
		{strings.Repeat("m", 65), "", RolePlayer, "model"},
		{"m", "bad\x00harness", RolePlayer, "harness"},
		{"m", "", RoleAdmin, "role"},
	} {
		err := ValidateAgent(c.model, c.harness, c.role)
		var e *Error
		if got := ""; errors.As(err, &e) {
			got = e.Field
			if got != c.field {
				t.Errorf("ValidateAgent(%q, %q, %q) field %q, want %q", c.model, c.harness, c.role, got, c.field)
			}
		} else if c.field != "" {
			t.Errorf("ValidateAgent(%q, %q, %q) = %v, want an error on %s", c.model, c.harness, c.role, err, c.field)
		}
	}
	if ValidateKind("robot") == nil || ValidateKind("") != nil || ValidateKind(KindAgent) != nil {
		t.Error("ValidateKind")
	}
}

func TestFoldUsername(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Alice_01.X-y", "alice_01.x-y"},
		{"BOSS", "boss"},
		{"ſessions", "ſessions"}, // long s: Unicode folds it to s, the key does not
		{"\u212aelvin", "\u212aelvin"},
		{"ÀB", "Àb"},
	} {
		if got := FoldUsername(tc.in); got != tc.want {
			t.Errorf("FoldUsername(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
