package github

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autosel-bot/autosel-bot/internal/ctxsleep"
	"github.com/autosel-bot/autosel-bot/internal/defaults"
	"github.com/autosel-bot/autosel-bot/internal/retry"
)

// ClientOptions configure the REST client. The tagged fields are keys of
// the configuration's `github:` section (see Options); Token is read from
// TokenFile or TokenEnv by ResolveToken.
type ClientOptions struct {
	// TokenEnv names the environment variable holding the API token;
	// TokenFile is a file holding it (it wins).
	TokenEnv  string `mapstructure:"token_env"`
	TokenFile string `mapstructure:"token_file"`
	// BaseURL is the REST API root; "" is https://api.github.com/.
	BaseURL string `mapstructure:"api_url"`
	// UploadURL is the upload root (release assets); "" derives it from
	// BaseURL (https://uploads.github.com/ for github.com).
	UploadURL string `mapstructure:"upload_url"`
	// Retries bounds the retries of one request (5xx, network errors,
	// rate limits): 0 is the default (4), a negative value none.
	Retries int `mapstructure:"retries"`
	// Backoff is the first 5xx retry delay, doubled per retry up to
	// MaxBackoff.
	Backoff    time.Duration `mapstructure:"backoff"`
	MaxBackoff time.Duration `mapstructure:"max_backoff"`
	// MaxRateWait bounds one rate-limit wait.
	MaxRateWait time.Duration `mapstructure:"max_rate_wait"`
	// WriteGap spaces mutating requests (0: one second, as GitHub
	// recommends; negative: none).
	WriteGap time.Duration `mapstructure:"write_gap"`

	// Token is the API token (never logged); "" sends anonymous requests.
	Token string `mapstructure:"-"`
	// Base is the underlying transport (nil: http.DefaultTransport).
	Base http.RoundTripper `mapstructure:"-"`
	// Log receives retries and waits.
	Log *slog.Logger `mapstructure:"-"`
}

// Client is a go-github client behind the conditional-request cache and
// the retry/rate-limit transport, with their counters.
type Client struct {
	*gh.Client
	// Stats count requests, 304s, retries and rate-limit waits.
	Stats *Stats
	// HTTP is the plain client for downloads outside the API (artifact
	// archives behind a redirect): no token, no cache.
	HTTP *http.Client
	tr   *transport
}

// NewClient returns a client for o.
func NewClient(o ClientOptions) (*Client, error) {
	o = o.withDefaults()
	if o.Base == nil {
		o.Base = http.DefaultTransport
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	base, upload, err := apiURLs(o.BaseURL, o.UploadURL)
	if err != nil {
		return nil, err
	}
	stats := &Stats{}
	tr := &transport{
		base: o.Base, token: o.Token, hosts: map[string]bool{base.Host: true, upload.Host: true},
		retries: o.Retries, backoff: retry.Policy{Min: o.Backoff, Max: o.MaxBackoff}, maxWait: o.MaxRateWait,
		log: o.Log, stats: stats, sleep: ctxsleep.Sleep, now: time.Now, writeGap: o.WriteGap,
	}
	c := gh.NewClient(&http.Client{Transport: newETagCache(tr, stats)})
	c.BaseURL, c.UploadURL = base, upload
	c.UserAgent = "autosel-bot"
	return &Client{Client: c, Stats: stats, HTTP: &http.Client{Transport: o.Base, Timeout: 10 * time.Minute}, tr: tr}, nil
}

// withDefaults fills the unset counts and durations from
// DefaultOptions (0 is the default, as everywhere in the configuration;
// negative Retries and WriteGap mean none).
func (o ClientOptions) withDefaults() ClientOptions {
	d := DefaultOptions().Client
	o.Retries = defaults.Count(o.Retries, d.Retries)
	defaults.Fill(&o.Backoff, d.Backoff)
	defaults.Fill(&o.MaxBackoff, d.MaxBackoff)
	defaults.Fill(&o.MaxRateWait, d.MaxRateWait)
	if o.WriteGap == 0 {
		o.WriteGap = d.WriteGap
	}
	return o
}

// apiURLs resolves the API and upload roots (each ending in '/').
func apiURLs(base, upload string) (*url.URL, *url.URL, error) {
	if base == "" {
		base = "https://api.github.com/"
	}
	if upload == "" {
		if base == "https://api.github.com/" {
			upload = "https://uploads.github.com/"
		} else {
			upload = strings.TrimSuffix(base, "/") + "/"
		}
	}
	var out [2]*url.URL
	for i, s := range []string{base, upload} {
		if !strings.HasSuffix(s, "/") {
			s += "/"
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, nil, fmt.Errorf("github: bad API URL %q", s)
		}
		out[i] = u
	}
	return out[0], out[1], nil
}

// SplitRepo splits "owner/name".
func SplitRepo(repo string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("github: repository %q: want owner/name", repo)
	}
	return owner, name, nil
}
