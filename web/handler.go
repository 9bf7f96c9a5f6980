package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

//go:embed templates/*.html
var templateFS embed.FS

// listLimit bounds the series on the front page.
const listLimit = 100

// csp forbids scripts, frames, forms and anything from elsewhere; the
// pages' own style sheet is inline.
const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the pages. It only reads from its Source.
type Handler struct {
	src   Source
	log   *slog.Logger
	mux   *http.ServeMux
	pages map[string]*template.Template
}

// New returns the handler of the pages over src. log may be nil.
func New(src Source, log *slog.Logger) (*Handler, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{src: src, log: log, mux: http.NewServeMux(), pages: map[string]*template.Template{}}
	for _, name := range []string{"index", "series", "finding", "error"} {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		h.pages[name] = t
	}
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.HandleFunc("GET /series/{key}", h.series)
	h.mux.HandleFunc("GET /finding/{id}", h.finding)
	h.mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, "No such page.")
	})
	return h, nil
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"add": func(a, b int) int { return a + b },
	"sub": func(a, b int) int { return a - b },
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", csp)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	es, err := recentEntries(r.Context(), h.src, listLimit)
	if err != nil {
		h.internal(w, r, err)
		return
	}
	ip := &IndexPage{}
	for _, e := range es {
		ip.Rows = append(ip.Rows, indexRow(e, ""))
	}
	h.render(w, r, "index", http.StatusOK, &page{Root: "", Title: "autosel-bot: recent series", Data: ip})
}

func (h *Handler) series(w http.ResponseWriter, r *http.Request) {
	e, err := loadEntry(r.Context(), h.src, r.PathValue("key"))
	if errors.Is(err, errNoEntry) {
		h.fail(w, r, http.StatusNotFound, "No series "+r.PathValue("key")+" is recorded.")
		return
	}
	if err != nil {
		h.internal(w, r, err)
		return
	}
	h.render(w, r, "series", http.StatusOK, &page{Root: "../", Title: e.Title, Data: buildSeriesPage(e)})
}

func (h *Handler) finding(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !report.ValidID(id) {
		h.fail(w, r, http.StatusNotFound, "Not a finding id: "+id)
		return
	}
	fp, err := h.findingPage(r.Context(), id, r.URL.Query().Get("in"))
	if err != nil {
		h.internal(w, r, err)
		return
	}
	if fp == nil {
		h.fail(w, r, http.StatusNotFound, "No recorded series holds finding "+id+".")
		return
	}
	h.render(w, r, "finding", http.StatusOK, &page{Root: "../", Title: "Finding " + id, Data: fp})
}

// findingPage returns the page of finding id as the newest entry holding
// it reports it (or the entry in, when it holds it); nil when none does.
func (h *Handler) findingPage(ctx context.Context, id, in string) (*FindingPage, error) {
	es, err := entriesWithFinding(ctx, h.src, id)
	if err != nil || len(es) == 0 {
		return nil, err
	}
	e := es[0]
	for _, o := range es {
		if in != "" && o.Key == in {
			e = o
		}
	}
	return buildFindingPage(e, findFinding(e.Report, id), es), nil
}

// errorPage is the data of the error template.
type errorPage struct{ Status, Message string }

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, "error", status, &page{Root: rootOf(r.URL.Path), Title: http.StatusText(status),
		Data: &errorPage{Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), Message: msg}})
}

func (h *Handler) internal(w http.ResponseWriter, r *http.Request, err error) {
	h.log.Error("web page", "path", r.URL.Path, "err", err)
	h.fail(w, r, http.StatusInternalServerError, "The page could not be made; the log says why.")
}

// rootOf is the relative path from a page at path back to the root.
func rootOf(path string) string {
	n := strings.Count(strings.TrimPrefix(path, "/"), "/")
	return strings.Repeat("../", n)
}

// render executes a page into a buffer, so that a failing template
// answers 500 rather than half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, name string, status int, p *page) {
	var buf bytes.Buffer
	if err := h.execute(&buf, name, p); err != nil {
		h.log.Error("web template", "page", name, "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// execute writes page name ("index", "series", "finding" or "error") with
// its data to w.
func (h *Handler) execute(w io.Writer, name string, p *page) error {
	t := h.pages[name]
	if t == nil {
		return fmt.Errorf("web: no page %q", name)
	}
	return t.ExecuteTemplate(w, "layout", p)
}
