package dataset

import (
	"path/filepath"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

func TestNYUCanonicalSlug(t *testing.T) {
	const task = `{"name": "N", "flag": "f"}`
	tests := []struct {
		name  string
		task  string            // the task's directory, relative to the checkout
		files map[string]string // besides its challenge.json
		want  string
	}{
		{"named by test_dataset.json", "test/2021/CSAW-Finals/rev/maze", map[string]string{
			"test_dataset.json": `{"2021f-rev-maze_v2": {"year": "2021", "event": "CSAW-Finals", "category": "rev",
				"challenge": "maze", "path": "test/2021/CSAW-Finals/rev/maze"}}`}, "2021f-rev-maze-v2"},
		{"named by development_dataset.json", "development/2019/CSAW-Quals/pwn/baby boi", map[string]string{
			"test_dataset.json":        `{}`,
			"development_dataset.json": `{"2019q-pwn-baby_boi": {"path": "development/2019/CSAW-Quals/pwn/baby boi"}}`}, "2019q-pwn-baby-boi"},
		{"derived: NYU's safe name", "test/2022/CSAW-Finals/crypto/R@nd0m  Name!", nil, "2022f-cry-r-nd0m-name"},
		{"derived when the index does not name it", "test/2020/CSAW-Quals/forensics/Lost-Bits", map[string]string{
			"test_dataset.json": `{"2020q-for-other": {"path": "test/2020/CSAW-Quals/forensics/other"}}`}, "2020q-for-lost-bits"},
		{"a file of that name not NYU's is ignored", "2018/CSAW-Finals/misc/x_y", map[string]string{
			"test_dataset.json": `[1, 2, 3]`}, "2018f-msc-x-y"},
		{"an older event directory's category", "2013/CSAW-Quals/Reversing/Bin 1", nil, "2013q-rev-bin-1"},
		{"outside NYU's layout: the directory's name", "mine/web/Cool_Task", nil, "cool-task"},
		{"a year that is not one: the directory's name", "20x1/CSAW-Quals/web/site", nil, "site"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{filepath.ToSlash(filepath.Join(tt.task, "challenge.json")): task}
			for k, v := range tt.files {
				files[k] = v
			}
			writeTree(t, root, files)
			c := readTask(t, filepath.Join(root, filepath.FromSlash(tt.task)))
			if c.Slug != tt.want {
				t.Errorf("slug = %q, want %q", c.Slug, tt.want)
			}
			if err := ctf.ValidateSlug(c.Slug); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestDeriveNYUName(t *testing.T) {
	for dir, want := range map[string]string{
		"/x/2021/CSAW-Finals/crypto/open-ELLIPTIC!": "2021f-cry-open_elliptic",
		"/x/2023/CSAW-Quals/web/a  b__c":            "2023q-web-a_b_c",
		"/x/2023/CSAW-Quals/misc/Ünïcode":           "2023q-msc-ünïcode",
		"/x/2023/Quals/pwn/p":                       "2023q-pwn-p",
		"/x/2023/CSAW-Quals/osint/p":                "",
		"/2023/CSAW-Quals/pwn/p":                    "2023q-pwn-p",
		"/CSAW-Quals/pwn/p":                         "",
	} {
		if got := deriveNYUName(filepath.FromSlash(dir)); got != want {
			t.Errorf("deriveNYUName(%q) = %q, want %q", dir, got, want)
		}
	}
}
