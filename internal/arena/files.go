package arena

import (
	"archive/zip"
	"fmt"
	"io"
	"time"

	"github.com/flagshipctf/flagship/internal/live"
)

// Format is what an export writes.
type Format string

const (
	// FormatAll: summary.json (NYU's), attempts.jsonl and times.csv.
	FormatAll Format = "all"
	// FormatNYU: the NYU CTF Bench leaderboard's summary.json alone.
	FormatNYU Format = "nyu"
	// FormatCybench: Cybench's run log per task, in cybench/.
	FormatCybench Format = "cybench"
)

// ParseFormat reads a format's name ("" is FormatAll).
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case "":
		return FormatAll, nil
	case FormatAll, FormatNYU, FormatCybench:
		return f, nil
	}
	return "", fmt.Errorf("format must be %s, %s or %s, not %q", FormatAll, FormatNYU, FormatCybench, s)
}

// File is one file of an export, as the CLI writes it and the web app
// offers it for download.
type File struct {
	Name        string
	ContentType string
	Write       func(io.Writer) error
}

// The files one can download, by name.
const (
	SummaryFile  = "summary.json"
	AttemptsFile = "attempts.jsonl"
	TimesFile    = "times.csv"
	CybenchZip   = "cybench.zip"
	CybenchDir   = "cybench"
)

// Files are the single files of run's export in format f (Cybench's logs
// are several: CybenchLogs).
func Files(run live.Run, f Format, m Meta) []File {
	summary := File{SummaryFile, "application/json", func(w io.Writer) error { return WriteNYUSummary(w, run, m) }}
	switch f {
	case FormatNYU:
		return []File{summary}
	case FormatCybench:
		return nil
	}
	return []File{summary,
		{AttemptsFile, "application/x-ndjson", func(w io.Writer) error { return WriteAttempts(w, run) }},
		{TimesFile, "text/csv; charset=utf-8", func(w io.Writer) error { return WriteTimes(w, run) }},
	}
}

// Download is the file called name of run's export, as the web app serves
// it: one of the files of FormatAll, or cybench.zip (the logs of
// FormatCybench under cybench/, in one archive).
func Download(run live.Run, name string, m Meta) (File, bool) {
	if name == CybenchZip {
		return File{CybenchZip, "application/zip", func(w io.Writer) error { return WriteCybenchZip(w, run, m.Date) }}, true
	}
	for _, f := range Files(run, FormatAll, m) {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// WriteCybenchZip writes run's Cybench logs as a zip archive of
// cybench/<log>, each entry dated at (so an export of one run on one day
// is the same archive).
func WriteCybenchZip(w io.Writer, run live.Run, at time.Time) error {
	logs, err := CybenchLogs(run)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	for _, l := range logs {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: CybenchDir + "/" + l.Name, Method: zip.Deflate, Modified: at.UTC()})
		if err != nil {
			return err
		}
		if err := l.Write(fw); err != nil {
			return err
		}
	}
	return zw.Close()
}
