package ghfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WorkflowFunc plays a dispatched workflow: it gets the dispatch inputs
// and the bytes of the release asset they name, and returns the
// artifacts the run uploads (name -> zip) and the run's conclusion.
type WorkflowFunc func(inputs map[string]string, asset []byte) (artifacts map[string][]byte, conclusion string)

// Run is a workflow run of the fake.
type Run struct {
	ID           int64
	Repo         string
	Workflow     string
	Ref          string
	DisplayTitle string
	Inputs       map[string]string
	Status       string
	Conclusion   string
	Created      time.Time
	polls        int
	listed       int
}

type asset struct {
	id      int64
	repo    string
	release int64
	name    string
	data    []byte
}

type artifact struct {
	id   int64
	run  int64
	name string
	data []byte
}

// actionsState is the fake's Actions side: releases, dispatched runs and
// their artifacts.
type actionsState struct {
	releases  map[string]int64 // repo + "@" + tag -> id
	assets    map[int64]*asset
	runs      []*Run
	artifacts map[int64]*artifact
	// workflow plays dispatched runs.
	workflow WorkflowFunc
	// hideListings hides a new run from this many listings (the delay
	// between dispatch and the run showing up).
	hideListings int
	// pollsToComplete is how many GETs of a run it takes to complete.
	pollsToComplete int
	// deleted counts deleted assets and artifacts.
	deletedAssets, deletedArtifacts int
	// maxActive is the most runs not completed at once.
	maxActive int
}

func (a *actionsState) init() {
	a.releases = map[string]int64{}
	a.assets = map[int64]*asset{}
	a.artifacts = map[int64]*artifact{}
	a.pollsToComplete = 2
}

// SetWorkflow sets how dispatched runs behave: fn plays them, a new run is
// hidden from hide listings and completes at the polls-th GET.
func (s *Server) SetWorkflow(fn WorkflowFunc, hide, polls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.actions.workflow, s.actions.hideListings, s.actions.pollsToComplete = fn, hide, polls
}

// Runs returns the workflow runs.
func (s *Server) Runs() []Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Run
	for _, r := range s.actions.runs {
		out = append(out, *r)
	}
	return out
}

// MaxActive returns the most workflow runs that were in flight at once.
func (s *Server) MaxActive() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.actions.maxActive
}

// Leftovers returns the number of release assets and artifacts not
// deleted.
func (s *Server) Leftovers() (assets, artifacts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.actions.assets), len(s.actions.artifacts)
}

func (s *Server) actionRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/repos/{o}/{r}/releases/tags/{tag}", s.getRelease)
	mux.HandleFunc("POST /api/repos/{o}/{r}/releases", s.createRelease)
	mux.HandleFunc("POST /uploads/repos/{o}/{r}/releases/{id}/assets", s.uploadAsset)
	mux.HandleFunc("DELETE /api/repos/{o}/{r}/releases/assets/{id}", s.deleteAsset)
	mux.HandleFunc("POST /api/repos/{o}/{r}/actions/workflows/{wf}/dispatches", s.dispatch)
	mux.HandleFunc("GET /api/repos/{o}/{r}/actions/workflows/{wf}/runs", s.listRuns)
	mux.HandleFunc("GET /api/repos/{o}/{r}/actions/runs/{id}", s.getRun)
	mux.HandleFunc("POST /api/repos/{o}/{r}/actions/runs/{id}/cancel", s.cancelRun)
	mux.HandleFunc("GET /api/repos/{o}/{r}/actions/runs/{id}/artifacts", s.listArtifacts)
	mux.HandleFunc("GET /api/repos/{o}/{r}/actions/artifacts/{id}/zip", s.downloadArtifact)
	mux.HandleFunc("DELETE /api/repos/{o}/{r}/actions/artifacts/{id}", s.deleteArtifact)
	mux.HandleFunc("GET /blob/artifacts/{id}", s.artifactBlob)
}

func releaseJSON(id int64, tag string) map[string]any {
	return shape("release", map[string]any{"id": id, "tag_name": tag, "name": tag, "prerelease": true})
}

func (s *Server) getRelease(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	id, ok := s.actions.releases[repoOf(r)+"@"+r.PathValue("tag")]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	writeJSON(w, 200, releaseJSON(id, r.PathValue("tag")))
}

func (s *Server) createRelease(w http.ResponseWriter, r *http.Request) {
	var in struct {
		TagName    string `json:"tag_name"`
		Prerelease bool   `json:"prerelease"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.TagName == "" {
		writeJSON(w, 422, map[string]any{"message": "Validation Failed"})
		return
	}
	s.mu.Lock()
	id := s.id()
	s.actions.releases[repoOf(r)+"@"+in.TagName] = id
	s.mu.Unlock()
	writeJSON(w, 201, releaseJSON(id, in.TagName))
}

func (s *Server) uploadAsset(w http.ResponseWriter, r *http.Request) {
	rel, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	name := r.URL.Query().Get("name")
	data, _ := io.ReadAll(r.Body)
	if name == "" || len(data) == 0 || r.ContentLength != int64(len(data)) {
		writeJSON(w, 422, map[string]any{"message": "Validation Failed"})
		return
	}
	s.mu.Lock()
	a := &asset{id: s.id(), repo: repoOf(r), release: rel, name: name, data: data}
	s.actions.assets[a.id] = a
	s.mu.Unlock()
	writeJSON(w, 201, shape("release-asset", map[string]any{"id": a.id, "name": name, "size": len(data),
		"content_type": r.Header.Get("Content-Type")}))
}

func (s *Server) deleteAsset(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.actions.assets[id]; !ok {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	delete(s.actions.assets, id)
	s.actions.deletedAssets++
	w.WriteHeader(204)
}

func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Ref    string         `json:"ref"`
		Inputs map[string]any `json:"inputs"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Ref == "" {
		writeJSON(w, 422, map[string]any{"message": "Unexpected inputs provided"})
		return
	}
	inputs := map[string]string{}
	for k, v := range in.Inputs {
		sv, ok := v.(string)
		if !ok {
			writeJSON(w, 422, map[string]any{"message": "inputs must be strings"})
			return
		}
		inputs[k] = sv
	}
	if inputs["run_key"] == "" || inputs["bundle_asset_id"] == "" || len(inputs) != 2 {
		writeJSON(w, 422, map[string]any{"message": "Required input missing or unexpected inputs"})
		return
	}
	s.mu.Lock()
	s.actions.runs = append(s.actions.runs, &Run{ID: s.id(), Repo: repoOf(r), Workflow: r.PathValue("wf"), Ref: in.Ref,
		DisplayTitle: "autosel-vm " + inputs["run_key"], Inputs: inputs, Status: "queued", Created: time.Now().UTC()})
	active := 0
	for _, run := range s.actions.runs {
		if run.Status != "completed" {
			active++
		}
	}
	s.actions.maxActive = max(s.actions.maxActive, active)
	s.mu.Unlock()
	w.WriteHeader(204)
}

func runJSON(run *Run) map[string]any {
	var concl any
	if run.Conclusion != "" {
		concl = run.Conclusion
	}
	return shape("workflow-run", map[string]any{"id": run.ID, "name": "autosel-vm", "display_title": run.DisplayTitle,
		"status": run.Status, "conclusion": concl, "head_branch": run.Ref, "event": "workflow_dispatch",
		"path": ".github/workflows/" + run.Workflow, "created_at": run.Created.Format(time.RFC3339),
		"html_url": fmt.Sprintf("https://github.com/%s/actions/runs/%d", run.Repo, run.ID)})
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var since time.Time
	if c := q.Get("created"); strings.HasPrefix(c, ">=") {
		since, _ = time.Parse(time.RFC3339, c[2:])
	}
	s.mu.Lock()
	var items []any
	for i := len(s.actions.runs) - 1; i >= 0; i-- {
		run := s.actions.runs[i]
		if run.Repo != repoOf(r) || run.Workflow != r.PathValue("wf") || (q.Get("event") != "" && q.Get("event") != "workflow_dispatch") ||
			run.Created.Before(since) {
			continue
		}
		run.listed++
		if run.listed <= s.actions.hideListings {
			continue
		}
		items = append(items, runJSON(run))
	}
	s.mu.Unlock()
	s.writeList(w, r, items, func(page []any) any { return map[string]any{"total_count": len(items), "workflow_runs": page} })
}

func (s *Server) run(r *http.Request) *Run {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	for _, run := range s.actions.runs {
		if run.ID == id && run.Repo == repoOf(r) {
			return run
		}
	}
	return nil
}

// getRun advances a run: queued, in_progress, then completed (playing the
// workflow) at the configured poll.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	run := s.run(r)
	if run == nil {
		s.mu.Unlock()
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	var play WorkflowFunc
	var data []byte
	if run.Status != "completed" {
		run.polls++
		switch {
		case run.polls >= s.actions.pollsToComplete:
			play = s.actions.workflow
			id, _ := strconv.ParseInt(run.Inputs["bundle_asset_id"], 10, 64)
			if a := s.actions.assets[id]; a != nil {
				data = a.data
			}
		default:
			run.Status = "in_progress"
		}
	}
	s.mu.Unlock()
	if play != nil {
		arts, concl := play(run.Inputs, data)
		s.mu.Lock()
		for name, zip := range arts {
			a := &artifact{id: s.id(), run: run.ID, name: name, data: zip}
			s.actions.artifacts[a.id] = a
		}
		run.Status, run.Conclusion = "completed", concl
		s.mu.Unlock()
	}
	s.mu.Lock()
	b, _ := json.Marshal(runJSON(run))
	s.mu.Unlock()
	writeCached(w, r, "application/json; charset=utf-8", b)
}

func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	run := s.run(r)
	if run == nil {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	if run.Status == "completed" {
		writeJSON(w, 409, map[string]any{"message": "Cannot cancel a workflow run that is completed."})
		return
	}
	run.Status, run.Conclusion = "completed", "cancelled"
	writeJSON(w, 202, map[string]any{})
}

func (s *Server) listArtifacts(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	run := s.run(r)
	var items []any
	if run != nil {
		for _, a := range s.actions.artifacts {
			if a.run == run.ID {
				items = append(items, shape("artifact", map[string]any{"id": a.id, "name": a.name, "size_in_bytes": len(a.data),
					"archive_download_url": fmt.Sprintf("%s/api/repos/%s/actions/artifacts/%d/zip", s.URL, run.Repo, a.id),
					"workflow_run":         map[string]any{"id": run.ID}}))
			}
		}
	}
	s.mu.Unlock()
	s.writeList(w, r, items, func(page []any) any { return map[string]any{"total_count": len(items), "artifacts": page} })
}

func (s *Server) downloadArtifact(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	_, ok := s.actions.artifacts[id]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, 410, map[string]any{"message": "Artifact has expired"})
		return
	}
	// GitHub redirects to short-lived storage on another host.
	w.Header().Set("Location", fmt.Sprintf("%s/blob/artifacts/%d?sig=xyz", s.URL, id))
	w.WriteHeader(http.StatusFound)
}

func (s *Server) artifactBlob(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if r.Header.Get("Authorization") != "" {
		writeJSON(w, 400, map[string]any{"message": "storage refuses the API token"})
		return
	}
	s.mu.Lock()
	a, ok := s.actions.artifacts[id]
	s.mu.Unlock()
	if !ok {
		w.WriteHeader(404)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Write(a.data)
}

func (s *Server) deleteArtifact(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.actions.artifacts[id]; !ok {
		writeJSON(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	delete(s.actions.artifacts, id)
	s.actions.deletedArtifacts++
	w.WriteHeader(204)
}
