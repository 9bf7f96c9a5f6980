package daemon

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/deliver"
)

// TestHTTPHandlerWeb: Options.Web serves every path but /metrics and
// /healthz; without it those paths are not found.
func TestHTTPHandlerWeb(t *testing.T) {
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("web " + r.URL.Path)) })
	for _, tc := range []struct {
		web           http.Handler
		path          string
		code          int
		body, notBody string
	}{
		{web, "/", 200, "web /", ""},
		{web, "/finding/0123456789ab", 200, "web /finding/0123456789ab", ""},
		{web, "/healthz", 200, `"ok"`, "web /healthz"},
		{web, "/metrics", 200, "autosel_analysis_seconds", "web /metrics"},
		{nil, "/finding/0123456789ab", 404, "", "web"},
	} {
		e := newEnv(t, Options{Web: tc.web}, deliver.Options{}, nil, nil)
		rec := httptest.NewRecorder()
		e.d.HTTPHandler().ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		body := rec.Body.String()
		if rec.Code != tc.code || !strings.Contains(body, tc.body) || tc.notBody != "" && strings.Contains(body, tc.notBody) {
			t.Errorf("web %v %s: %d %.200s", tc.web != nil, tc.path, rec.Code, body)
		}
	}
}
