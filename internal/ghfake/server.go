// Package ghfake is an in-process fake of the parts of GitHub's REST API
// the bot uses (pull requests, commits, reviews, check runs, releases,
// workflow dispatch, runs and artifacts), for tests. Response bodies start
// from the documented example shapes in testdata/ with the fields the
// test controls filled in; list endpoints paginate with Link headers, GET
// answers carry ETags and honour If-None-Match, and faults (5xx, primary
// and secondary rate limits) can be injected per route. Every request is
// recorded so tests can assert what the client sent.
package ghfake

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

//go:embed testdata/*.json
var shapes embed.FS

// shape returns the documented example body name (testdata/name.json)
// with fields overridden.
func shape(name string, fields map[string]any) map[string]any {
	b, err := shapes.ReadFile("testdata/" + name + ".json")
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	maps.Copy(m, fields)
	return m
}

// Request is one recorded request.
type Request struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
	// Status is what the server answered.
	Status int
}

// Fault is an injected failure: the next Times requests whose "METHOD
// path" starts with Match get it instead of an answer.
type Fault struct {
	Match string
	Times int
	// Kind is "5xx", "422", "primary" (403, X-RateLimit-Remaining: 0,
	// reset in ResetIn) or "secondary" (403 with Retry-After: RetryAfter
	// seconds).
	Kind       string
	ResetIn    time.Duration
	RetryAfter int
}

// Commit is one commit of a pull request.
type Commit struct {
	SHA, Patch string
	Parents    int
}

// PR is one pull request of the fake.
type PR struct {
	Repo          string
	Number        int
	Title, Body   string
	Author        string
	HeadSHA       string
	BaseSHA       string
	Draft         bool
	Commits       []Commit
	Files         map[string]string // path -> per-file patch (hunks)
	Updated       time.Time
	reviewsPosted int
}

// Review is a posted review.
type Review struct {
	ID       int64
	Repo     string
	PR       int
	CommitID string
	Body     string
	Event    string
	Comments []map[string]any
}

// CheckRun is a check run with every update applied.
type CheckRun struct {
	ID          int64
	Repo        string
	Name        string
	HeadSHA     string
	ExternalID  string
	Status      string
	Conclusion  string
	Title       string
	Summary     string
	Annotations []map[string]any
	Updates     int
}

// Server is the fake. Its fields are guarded by its mutex; use the
// accessor methods from tests.
type Server struct {
	*httptest.Server
	t testing.TB

	mu       sync.Mutex
	prs      map[string]*PR // "repo#n"
	reviews  []*Review
	checks   []*CheckRun
	requests []Request
	faults   []*Fault
	nextID   int64
	// PerPage caps list pages (to exercise pagination with few items).
	perPage int

	actions actionsState
}

// New starts a fake server; it is closed when the test ends.
func New(t testing.TB) *Server {
	s := &Server{t: t, prs: map[string]*PR{}, nextID: 1000, perPage: 100}
	s.actions.init()
	mux := http.NewServeMux()
	s.routes(mux)
	s.Server = httptest.NewServer(s.record(mux))
	t.Cleanup(s.Close)
	return s
}

// APIURL is the REST root to configure the client with.
func (s *Server) APIURL() string { return s.URL + "/api/" }

// UploadURL is the upload root.
func (s *Server) UploadURL() string { return s.URL + "/uploads/" }

// SetPerPage caps every list page at n items.
func (s *Server) SetPerPage(n int) {
	s.mu.Lock()
	s.perPage = n
	s.mu.Unlock()
}

// AddPR adds or replaces (a force-push) a pull request.
func (s *Server) AddPR(pr *PR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr.Updated.IsZero() {
		pr.Updated = time.Date(2023, 8, 11, 1, 3, 9, 0, time.UTC)
	}
	s.prs[fmt.Sprintf("%s#%d", pr.Repo, pr.Number)] = pr
}

// Inject adds a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	s.faults = append(s.faults, &f)
	s.mu.Unlock()
}

// Requests returns the recorded requests.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Reviews returns the posted reviews (with updates applied).
func (s *Server) Reviews() []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Review
	for _, r := range s.reviews {
		out = append(out, *r)
	}
	return out
}

// CheckRuns returns the check runs.
func (s *Server) CheckRuns() []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, c := range s.checks {
		out = append(out, *c)
	}
	return out
}

// Count returns how many recorded requests start with prefix ("POST /api/...").
func (s *Server) Count(prefix string) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.HasPrefix(r.Method+" "+r.Path, prefix) {
			n++
		}
	}
	return n
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// record logs every request and applies injected faults.
func (s *Server) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		sw := &statusWriter{ResponseWriter: w, status: 200}
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "4999")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		if f := s.fault(r.Method + " " + r.URL.Path); f != nil {
			s.serveFault(sw, f)
		} else {
			next.ServeHTTP(sw, r)
		}
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			Header: r.Header.Clone(), Body: body, Status: sw.status})
		s.mu.Unlock()
	})
}

func (s *Server) fault(key string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if f.Times > 0 && strings.HasPrefix(key, f.Match) {
			f.Times--
			return f
		}
	}
	return nil
}

func (s *Server) serveFault(w http.ResponseWriter, f *Fault) {
	switch f.Kind {
	case "primary":
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(f.ResetIn).Unix(), 10))
		writeJSON(w, http.StatusForbidden, shape("rate-limited", nil))
	case "secondary":
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
		writeJSON(w, http.StatusForbidden, shape("secondary-rate-limited", nil))
	case "422":
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Unprocessable Entity",
			"errors": []string{"Pull request review thread line must be part of the diff"}})
	default:
		writeJSON(w, http.StatusBadGateway, map[string]any{"message": "Server Error"})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

// writeCached answers a GET with an ETag, or 304 when the client has it.
func writeCached(w http.ResponseWriter, r *http.Request, contentType string, b []byte) {
	sum := sha256.Sum256(append([]byte(contentType), b...))
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// writeList answers one page of items with Link headers.
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, items []any, wrap func([]any) any) {
	s.mu.Lock()
	per := s.perPage
	s.mu.Unlock()
	if p, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil && p > 0 && p < per {
		per = p
	}
	page := 1
	if p, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && p > 0 {
		page = p
	}
	lo, hi := min((page-1)*per, len(items)), min(page*per, len(items))
	pageItems := items[lo:hi]
	if pageItems == nil {
		pageItems = []any{}
	}
	if hi < len(items) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		next := *r.URL
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, s.URL, next.String()))
	}
	var v any = pageItems
	if wrap != nil {
		v = wrap(pageItems)
	}
	b, _ := json.Marshal(v)
	writeCached(w, r, "application/json; charset=utf-8", b)
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/repos/{o}/{r}/pulls", s.listPulls)
	mux.HandleFunc("GET /api/repos/{o}/{r}/pulls/{n}", s.getPull)
	mux.HandleFunc("GET /api/repos/{o}/{r}/pulls/{n}/commits", s.pullCommits)
	mux.HandleFunc("GET /api/repos/{o}/{r}/pulls/{n}/files", s.pullFiles)
	mux.HandleFunc("GET /api/repos/{o}/{r}/commits/{sha}", s.getCommit)
	mux.HandleFunc("GET /api/repos/{o}/{r}/pulls/{n}/reviews", s.listReviews)
	mux.HandleFunc("POST /api/repos/{o}/{r}/pulls/{n}/reviews", s.createReview)
	mux.HandleFunc("PUT /api/repos/{o}/{r}/pulls/{n}/reviews/{id}", s.updateReview)
	mux.HandleFunc("POST /api/repos/{o}/{r}/check-runs", s.createCheck)
	mux.HandleFunc("PATCH /api/repos/{o}/{r}/check-runs/{id}", s.updateCheck)
	mux.HandleFunc("GET /api/repos/{o}/{r}/check-runs/{id}", s.getCheck)
	mux.HandleFunc("GET /api/repos/{o}/{r}/commits/{ref}/check-runs", s.listChecks)
	s.actionRoutes(mux)
}

func repoOf(r *http.Request) string { return r.PathValue("o") + "/" + r.PathValue("r") }

func (s *Server) pull(r *http.Request) *PR {
	n, _ := strconv.Atoi(r.PathValue("n"))
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prs[fmt.Sprintf("%s#%d", repoOf(r), n)]
}

func pullJSON(p *PR) map[string]any {
	owner, name, _ := strings.Cut(p.Repo, "/")
	repo := map[string]any{"id": 1296269, "name": name, "full_name": p.Repo, "owner": map[string]any{"login": owner}}
	return shape("pull", map[string]any{
		"number": p.Number, "title": p.Title, "body": p.Body, "draft": p.Draft,
		"user":       map[string]any{"login": p.Author, "id": 1},
		"updated_at": p.Updated.Format(time.RFC3339),
		"head":       map[string]any{"ref": "topic", "sha": p.HeadSHA, "repo": repo},
		"base":       map[string]any{"ref": "master", "sha": p.BaseSHA, "repo": repo},
	})
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	repo := repoOf(r)
	s.mu.Lock()
	var prs []*PR
	for _, p := range s.prs {
		if p.Repo == repo {
			prs = append(prs, p)
		}
	}
	s.mu.Unlock()
	sort.Slice(prs, func(i, j int) bool { return prs[i].Number > prs[j].Number })
	var items []any
	for _, p := range prs {
		items = append(items, pullJSON(p))
	}
	s.writeList(w, r, items, nil)
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	p := s.pull(r)
	if p == nil {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	b, _ := json.Marshal(pullJSON(p))
	writeCached(w, r, "application/json; charset=utf-8", b)
}

func (s *Server) pullCommits(w http.ResponseWriter, r *http.Request) {
	p := s.pull(r)
	if p == nil {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	var items []any
	for _, c := range p.Commits {
		parents := []any{}
		for i := 0; i < max(c.Parents, 1); i++ {
			parents = append(parents, map[string]any{"sha": fmt.Sprintf("%040d", i)})
		}
		items = append(items, shape("commit", map[string]any{"sha": c.SHA, "parents": parents}))
	}
	s.writeList(w, r, items, nil)
}

func (s *Server) pullFiles(w http.ResponseWriter, r *http.Request) {
	p := s.pull(r)
	if p == nil {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	paths := make([]string, 0, len(p.Files))
	for f := range p.Files {
		paths = append(paths, f)
	}
	sort.Strings(paths)
	var items []any
	for _, f := range paths {
		items = append(items, shape("file", map[string]any{"filename": f, "patch": p.Files[f]}))
	}
	s.writeList(w, r, items, nil)
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	s.mu.Lock()
	var c *Commit
	for _, p := range s.prs {
		for i := range p.Commits {
			if p.Commits[i].SHA == sha {
				c = &p.Commits[i]
			}
		}
	}
	s.mu.Unlock()
	if c == nil {
		writeJSON(w, 422, map[string]any{"message": "No commit found for SHA: " + sha})
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "patch") {
		writeCached(w, r, "text/plain; charset=utf-8", []byte(c.Patch))
		return
	}
	b, _ := json.Marshal(shape("commit", map[string]any{"sha": c.SHA}))
	writeCached(w, r, "application/json; charset=utf-8", b)
}

func reviewJSON(rv *Review) map[string]any {
	return shape("review", map[string]any{"id": rv.ID, "body": rv.Body, "commit_id": rv.CommitID,
		"user": map[string]any{"login": "autosel-bot[bot]", "type": "Bot"}})
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	s.mu.Lock()
	var items []any
	for _, rv := range s.reviews {
		if rv.Repo == repoOf(r) && rv.PR == n {
			items = append(items, reviewJSON(rv))
		}
	}
	s.mu.Unlock()
	s.writeList(w, r, items, nil)
}

func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	p := s.pull(r)
	var in struct {
		CommitID string           `json:"commit_id"`
		Body     string           `json:"body"`
		Event    string           `json:"event"`
		Comments []map[string]any `json:"comments"`
	}
	if p == nil || json.NewDecoder(r.Body).Decode(&in) != nil {
		writeJSON(w, 422, map[string]any{"message": "Unprocessable Entity"})
		return
	}
	// GitHub refuses comments on lines outside the diff.
	for _, c := range in.Comments {
		path, _ := c["path"].(string)
		line, _ := c["line"].(float64)
		if _, ok := p.Files[path]; !ok || !inDiff(p.Files[path], int(line)) || c["side"] != "RIGHT" {
			writeJSON(w, 422, map[string]any{"message": "Unprocessable Entity",
				"errors": []string{"Line could not be resolved"}})
			return
		}
	}
	s.mu.Lock()
	rv := &Review{ID: s.id(), Repo: p.Repo, PR: p.Number, CommitID: in.CommitID, Body: in.Body, Event: in.Event, Comments: in.Comments}
	s.reviews = append(s.reviews, rv)
	p.reviewsPosted++
	s.mu.Unlock()
	writeJSON(w, 200, reviewJSON(rv))
}

// inDiff reports whether line is a post-image line of a per-file patch.
func inDiff(patch string, line int) bool {
	n, left := 0, 0
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "@@ ") {
			f := strings.Fields(l)
			a, b, _ := strings.Cut(strings.TrimPrefix(f[2], "+"), ",")
			n, _ = strconv.Atoi(a)
			left = 1
			if b != "" {
				left, _ = strconv.Atoi(b)
			}
			continue
		}
		if left <= 0 || strings.HasPrefix(l, "-") || strings.HasPrefix(l, "\\") {
			continue
		}
		if n == line {
			return true
		}
		n++
		left--
	}
	return false
}

func (s *Server) updateReview(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct {
		Body string `json:"body"`
	}
	json.NewDecoder(r.Body).Decode(&in)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rv := range s.reviews {
		if rv.ID == id {
			rv.Body = in.Body
			writeJSON(w, 200, reviewJSON(rv))
			return
		}
	}
	writeJSON(w, 404, map[string]any{"message": "Not Found"})
}

func checkJSON(c *CheckRun) map[string]any {
	var concl any
	if c.Conclusion != "" {
		concl = c.Conclusion
	}
	return shape("check-run", map[string]any{"id": c.ID, "name": c.Name, "head_sha": c.HeadSHA, "external_id": c.ExternalID,
		"status": c.Status, "conclusion": concl,
		"output": map[string]any{"title": c.Title, "summary": c.Summary, "annotations_count": len(c.Annotations)}})
}

type checkInput struct {
	Name       string `json:"name"`
	HeadSHA    string `json:"head_sha"`
	ExternalID string `json:"external_id"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	Output     *struct {
		Title       string           `json:"title"`
		Summary     string           `json:"summary"`
		Annotations []map[string]any `json:"annotations"`
	} `json:"output"`
}

func (c *CheckRun) apply(in checkInput) {
	if in.Name != "" {
		c.Name = in.Name
	}
	if in.Status != "" {
		c.Status = in.Status
	}
	if in.Conclusion != "" {
		c.Status, c.Conclusion = "completed", in.Conclusion
	}
	if in.Output != nil {
		c.Title, c.Summary = in.Output.Title, in.Output.Summary
		c.Annotations = append(c.Annotations, in.Output.Annotations...)
	}
}

func (s *Server) createCheck(w http.ResponseWriter, r *http.Request) {
	var in checkInput
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Name == "" || in.HeadSHA == "" {
		writeJSON(w, 422, map[string]any{"message": "Unprocessable Entity"})
		return
	}
	if in.Output != nil && len(in.Output.Annotations) > 50 {
		writeJSON(w, 422, map[string]any{"message": "too many annotations"})
		return
	}
	s.mu.Lock()
	c := &CheckRun{ID: s.id(), Repo: repoOf(r), HeadSHA: in.HeadSHA, ExternalID: in.ExternalID, Status: "queued"}
	c.apply(in)
	s.checks = append(s.checks, c)
	s.mu.Unlock()
	writeJSON(w, 201, checkJSON(c))
}

func (s *Server) check(r *http.Request) *CheckRun {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	for _, c := range s.checks {
		if c.ID == id && c.Repo == repoOf(r) {
			return c
		}
	}
	return nil
}

func (s *Server) updateCheck(w http.ResponseWriter, r *http.Request) {
	var in checkInput
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		writeJSON(w, 422, map[string]any{"message": "Unprocessable Entity"})
		return
	}
	if in.Output != nil && len(in.Output.Annotations) > 50 {
		writeJSON(w, 422, map[string]any{"message": "too many annotations"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.check(r)
	if c == nil {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	c.apply(in)
	c.Updates++
	writeJSON(w, 200, checkJSON(c))
}

func (s *Server) getCheck(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c := s.check(r)
	var body []byte
	if c != nil {
		body, _ = json.Marshal(checkJSON(c))
	}
	s.mu.Unlock()
	if c == nil {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	writeCached(w, r, "application/json; charset=utf-8", body)
}

func (s *Server) listChecks(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("check_name")
	s.mu.Lock()
	var items []any
	for _, c := range s.checks {
		if c.Repo == repoOf(r) && c.HeadSHA == r.PathValue("ref") && (name == "" || c.Name == name) {
			items = append(items, checkJSON(c))
		}
	}
	s.mu.Unlock()
	s.writeList(w, r, items, func(page []any) any {
		return map[string]any{"total_count": len(items), "check_runs": page}
	})
}
