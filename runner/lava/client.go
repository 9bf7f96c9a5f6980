package lava

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client talks to LAVA's REST API v0.2 with a token.
type Client struct {
	base  *url.URL
	token string
	hc    *http.Client
}

// NewClient returns a client of the LAVA server at baseURL (for example
// http://lava.example.org/). hc nil means a client with a 60 s timeout.
func NewClient(baseURL, token string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("lava: bad server URL %q", baseURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	return &Client{base: u, token: token, hc: hc}, nil
}

// Job is a LAVA test job as the API shows it.
type Job struct {
	ID             int64      `json:"id"`
	State          string     `json:"state"`  // Submitted, Scheduling, Scheduled, Running, Canceling, Finished
	Health         string     `json:"health"` // Unknown, Complete, Incomplete, Canceled
	ActualDevice   string     `json:"actual_device"`
	SubmitTime     *time.Time `json:"submit_time"`
	StartTime      *time.Time `json:"start_time"`
	EndTime        *time.Time `json:"end_time"`
	FailureComment string     `json:"failure_comment"`
}

// Device is a LAVA device.
type Device struct {
	Hostname   string `json:"hostname"`
	DeviceType string `json:"device_type"`
	State      string `json:"state"`  // Idle, Reserved, Running
	Health     string `json:"health"` // Good, Unknown, Looping, Bad, Maintenance, Retired
	WorkerHost string `json:"worker_host"`
}

// Worker is a LAVA worker (dispatcher host).
type Worker struct {
	Hostname string `json:"hostname"`
	State    string `json:"state"`  // Online, Offline
	Health   string `json:"health"` // Active, Maintenance, Retired
}

// APIError is a non-2xx answer.
type APIError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("lava: %s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Body)
}

func (c *Client) do(ctx context.Context, method, path string, body any, out any) ([]byte, error) {
	ref, err := url.Parse(strings.TrimPrefix(path, "/"))
	if err != nil {
		return nil, err
	}
	u := c.base.ResolveReference(ref)
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Token "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("lava: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("lava: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		msg := string(data)
		if len(msg) > 500 {
			msg = msg[:500] + "..."
		}
		return nil, &APIError{Method: method, Path: path, Status: resp.StatusCode, Body: msg}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("lava: %s %s: %w", method, path, err)
		}
	}
	return data, nil
}

// Submit submits a job definition (YAML) and returns the job id.
func (c *Client) Submit(ctx context.Context, definition string) (int64, error) {
	var out struct {
		IDs []int64 `json:"job_ids"`
	}
	if _, err := c.do(ctx, http.MethodPost, "api/v0.2/jobs/", map[string]string{"definition": definition}, &out); err != nil {
		return 0, err
	}
	if len(out.IDs) != 1 {
		return 0, fmt.Errorf("lava: submit: %d job ids, want 1", len(out.IDs))
	}
	return out.IDs[0], nil
}

// Job returns a job's state.
func (c *Client) Job(ctx context.Context, id int64) (*Job, error) {
	var j Job
	if _, err := c.do(ctx, http.MethodGet, "api/v0.2/jobs/"+strconv.FormatInt(id, 10)+"/", nil, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// Cancel asks the server to cancel a job.
func (c *Client) Cancel(ctx context.Context, id int64) error {
	_, err := c.do(ctx, http.MethodGet, "api/v0.2/jobs/"+strconv.FormatInt(id, 10)+"/cancel/", nil, nil)
	return err
}

// Logs returns the job's log (LAVA's YAML log).
func (c *Client) Logs(ctx context.Context, id int64) ([]byte, error) {
	return c.do(ctx, http.MethodGet, "api/v0.2/jobs/"+strconv.FormatInt(id, 10)+"/logs/", nil, nil)
}

// Jobs returns the newest jobs in a state (Submitted, Running, ...).
func (c *Client) Jobs(ctx context.Context, state string) ([]Job, error) {
	var out struct {
		Results []Job `json:"results"`
	}
	q := url.Values{"state": {state}, "ordering": {"-id"}, "limit": {"100"}}
	if _, err := c.do(ctx, http.MethodGet, "api/v0.2/jobs/?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}

// Devices returns the devices of a device type.
func (c *Client) Devices(ctx context.Context, deviceType string) ([]Device, error) {
	var out struct {
		Results []Device `json:"results"`
	}
	q := url.Values{"device_type": {deviceType}, "limit": {"500"}}
	if _, err := c.do(ctx, http.MethodGet, "api/v0.2/devices/?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}

// Device returns one device.
func (c *Client) Device(ctx context.Context, hostname string) (*Device, error) {
	var d Device
	if _, err := c.do(ctx, http.MethodGet, "api/v0.2/devices/"+url.PathEscape(hostname)+"/", nil, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// Worker returns one worker.
func (c *Client) Worker(ctx context.Context, hostname string) (*Worker, error) {
	var w Worker
	if _, err := c.do(ctx, http.MethodGet, "api/v0.2/workers/"+url.PathEscape(hostname)+"/", nil, &w); err != nil {
		return nil, err
	}
	return &w, nil
}
