package github

import (
	"net/http"

	gh "github.com/google/go-github/v60/github"
)

// WebhookHandler receives GitHub webhook deliveries. Every delivery must
// carry a valid X-Hub-Signature-256 (HMAC-SHA256 of the body with secret);
// anything else is refused with 401 and never parsed. pull_request events
// (opened, reopened, synchronize, ready_for_review) of a configured
// repository trigger an immediate poll of that repository; ping and other
// events are acknowledged and ignored. Polling stays on: a lost delivery
// only delays the review until the next poll.
func WebhookHandler(w *Watcher, secret []byte) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(rw, "POST only", http.StatusMethodNotAllowed)
			return
		}
		r.Body = http.MaxBytesReader(rw, r.Body, 25<<20)
		payload, err := gh.ValidatePayload(r, secret)
		if err != nil || len(secret) == 0 {
			w.log.Warn("github webhook: refused delivery", "delivery", r.Header.Get("X-GitHub-Delivery"), "err", err)
			http.Error(rw, "bad signature", http.StatusUnauthorized)
			return
		}
		ev, err := gh.ParseWebHook(gh.WebHookType(r), payload)
		if err != nil {
			// Unknown event types are not an error for the sender.
			rw.WriteHeader(http.StatusNoContent)
			return
		}
		pe, ok := ev.(*gh.PullRequestEvent)
		if !ok {
			rw.WriteHeader(http.StatusNoContent)
			return
		}
		switch pe.GetAction() {
		case "opened", "reopened", "synchronize", "ready_for_review":
		default:
			rw.WriteHeader(http.StatusNoContent)
			return
		}
		repo := pe.GetRepo().GetFullName()
		if !w.Notify(repo) {
			w.log.Info("github webhook: event for an unwatched repository", "repo", repo)
			rw.WriteHeader(http.StatusNoContent)
			return
		}
		w.log.Info("github webhook: pull request event", "repo", repo, "pr", pe.GetNumber(), "action", pe.GetAction())
		rw.WriteHeader(http.StatusAccepted)
	})
}
