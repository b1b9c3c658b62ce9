package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestAdminCreatesAccounts: the users page's "Create an account" form
// calls the use case: an account made there can log in, a rule's refusal
// shows beside the form (typed values kept, the password never), a player
// is refused and creates nothing, and each creation is audited.
func TestAdminCreatesAccounts(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root := newBrowser(t, s)
	root.post("/login", url.Values{"username": {"root"}, "password": {"root-password"}})
	want(t, "the form", root.get("/admin/users"), 200, "Create an account", `action="/admin/users/new"`)

	form := func(username, email, password, password2, admin string) url.Values {
		return url.Values{"username": {username}, "email": {email}, "name": {"New <b>One</b>"}, "password": {password},
			"password2": {password2}, "admin": {admin}}
	}
	refused := []struct {
		name string
		form url.Values
		msg  string
	}{
		{"bad username", form("a b", "ab@example.com", "long enough", "long enough", ""), "Username must be 3 to 32 letters, digits, &#39;_&#39;, &#39;.&#39; or &#39;-&#39;"},
		{"bad email", form("newone", "not an email", "long enough", "long enough", ""), "Email &#34;not an email&#34; is not an email address"},
		{"short password", form("newone", "new@example.com", "short", "short", ""), "Password must be 8 to 128 characters"},
		{"passwords differ", form("newone", "new@example.com", "long enough", "other one", ""), "Password and its repetition differ"},
		{"taken username", form("pam", "other@example.com", "long enough", "long enough", ""), "That username or email is already taken"},
	}
	for _, tc := range refused {
		p := root.send("/admin/users/new", tc.form)
		want(t, tc.name, p, 200, `<p class="alert error" role="alert" id="new-error">`+tc.msg+`.</p>`,
			`value="`+tc.form.Get("username")+`"`, `value="New &lt;b&gt;One&lt;/b&gt;"`)
		if strings.Contains(p.body, "long enough") {
			t.Errorf("%s: the password is sent back in the page", tc.name)
		}
	}
	if _, err := s.Svc.Admin.UserByName(context.Background(), ctf.Operator, "newone"); err == nil {
		t.Fatal("a refused form created the account")
	}

	made := root.send("/admin/users/new", form("newone", "new@example.com", "long enough", "long enough", "1"))
	want(t, "created", made, 200, `Created the admin account <a href="/users/`+mustUser(t, s, "newone")+`">newone</a>.`,
		"new@example.com") // the list, searched for the new account
	if again := root.get("/admin/users?q=newone"); strings.Contains(again.body, "Created the admin account") || !strings.Contains(again.body, "new@example.com") {
		t.Error("a reload shows the created account's box again, or not the account")
	}
	// The new admin logs in, and is an admin.
	nb := newBrowser(t, s)
	if in := nb.post("/login", url.Values{"username": {"newone"}, "password": {"long enough"}}); in.status != http.StatusSeeOther {
		t.Fatalf("the new account logs in: %d\n%.1000s", in.status, in.body)
	}
	want(t, "the new admin", nb.get("/admin/users"), 200, "Create an account")

	// Without a password: made, and said so; nobody logs in to it.
	want(t, "no password", root.send("/admin/users/new", form("author1", "author1@example.com", "", "", "")), 200,
		"Created the player account", "without a password: nobody can log in to it")
	want(t, "log in to it", newBrowser(t, s).send("/login", url.Values{"username": {"author1"}, "password": {""}}), 200, "Wrong username or password")

	// A player's post is refused and creates nothing.
	pam := newBrowser(t, s)
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "player posts", pam.post("/admin/users/new", form("sneaky", "sneaky@example.com", "long enough", "long enough", "1")), 403, "Only admins")
	if _, err := s.Svc.Admin.UserByName(context.Background(), ctf.Operator, "sneaky"); err == nil {
		t.Error("a player's form created an account")
	}

	log, err := s.Svc.Admin.AuditLog(context.Background(), ctf.Operator, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var created []string
	for _, e := range log {
		if e.Action == "user.create" {
			created = append(created, e.Actor+" created "+e.Target)
		}
	}
	if got := strings.Join(created, ", "); got != "root created author1, root created newone" {
		t.Errorf("audit log of creations: %q", got)
	}
	want(t, "audit page", root.get("/admin/audit"), 200, `<code class="nowrap">user.create</code>`)
}
