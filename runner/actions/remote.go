package actions

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autosel-bot/autosel-bot/internal/ctxsleep"
	"github.com/autosel-bot/autosel-bot/runner"
)

// remote uploads the bundle, dispatches the workflow, waits for the run
// and returns what its results artifact holds. The asset is deleted
// afterwards; a run still going when ctx ends is cancelled.
func (b *Backend) remote(ctx context.Context, key, bundle string) (*runner.BootOutcome, []byte, []byte, error) {
	rel, err := b.release(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	asset, err := b.upload(ctx, rel, key, bundle)
	if err != nil {
		return nil, nil, nil, err
	}
	defer b.cleanup(func(ctx context.Context) error {
		_, err := b.c.Repositories.DeleteReleaseAsset(ctx, b.owner, b.name, asset)
		return err
	}, "delete release asset")
	started := time.Now()
	_, err = b.c.Actions.CreateWorkflowDispatchEventByFileName(ctx, b.owner, b.name, b.opts.Workflow, gh.CreateWorkflowDispatchEventRequest{
		Ref: b.opts.Ref, Inputs: map[string]any{"run_key": key, "bundle_asset_id": strconv.FormatInt(asset, 10)},
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("github-actions: dispatch %s: %w", b.opts.Workflow, err)
	}
	run, err := b.findRun(ctx, key, started)
	if err != nil {
		return nil, nil, nil, err
	}
	b.log.Info("github-actions: run found", "key", key, "run", run.GetID(), "url", run.GetHTMLURL())
	run, err = b.waitRun(ctx, run)
	if err != nil {
		if ctx.Err() != nil {
			id := run.GetID()
			b.cleanup(func(ctx context.Context) error {
				_, err := b.c.Actions.CancelWorkflowRunByID(ctx, b.owner, b.name, id)
				return err
			}, "cancel run")
		}
		return nil, nil, nil, err
	}
	out, console, results, err := b.fetchResults(ctx, run, key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("github-actions run %d (%s): %w", run.GetID(), run.GetConclusion(), err)
	}
	return out, console, results, nil
}

// cleanup runs fn with a short context of its own (the caller's may be
// done: shutdown still cancels runs and removes assets).
func (b *Backend) cleanup(fn func(context.Context) error, what string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fn(ctx); err != nil {
		b.log.Warn("github-actions: cleanup failed", "what", what, "err", err)
	}
}

// release returns the id of the prerelease that carries the bundles,
// creating it on first use.
func (b *Backend) release(ctx context.Context) (int64, error) {
	b.relMu.Lock()
	defer b.relMu.Unlock()
	if b.releaseID != 0 {
		return b.releaseID, nil
	}
	rel, resp, err := b.c.Repositories.GetReleaseByTag(ctx, b.owner, b.name, b.opts.ReleaseTag)
	if err != nil && resp != nil && resp.StatusCode == http.StatusNotFound {
		rel, _, err = b.c.Repositories.CreateRelease(ctx, b.owner, b.name, &gh.RepositoryRelease{
			TagName: gh.String(b.opts.ReleaseTag), TargetCommitish: gh.String(b.opts.Ref),
			Name:       gh.String("autosel-bot VM inputs"),
			Body:       gh.String("Kernels and initramfs bundles for the autosel-vm workflow; each asset is deleted after its run."),
			Prerelease: gh.Bool(true),
		})
	}
	if err != nil {
		return 0, fmt.Errorf("github-actions: release %s: %w", b.opts.ReleaseTag, err)
	}
	b.releaseID = rel.GetID()
	return b.releaseID, nil
}

// upload adds the bundle to the release as <key>.tar.gz.
func (b *Backend) upload(ctx context.Context, release int64, key, bundle string) (int64, error) {
	f, err := os.Open(bundle)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	a, _, err := b.c.Repositories.UploadReleaseAsset(ctx, b.owner, b.name, release,
		&gh.UploadOptions{Name: key + ".tar.gz", MediaType: "application/gzip"}, f)
	if err != nil {
		return 0, fmt.Errorf("github-actions: upload bundle: %w", err)
	}
	return a.GetID(), nil
}

// findRun finds the dispatched run by its run-name ("autosel-vm <key>"),
// listing the workflow's dispatch runs created since the dispatch.
func (b *Backend) findRun(ctx context.Context, key string, since time.Time) (*gh.WorkflowRun, error) {
	title := "autosel-vm " + key
	deadline := time.Now().Add(b.opts.FindTimeout)
	opts := &gh.ListWorkflowRunsOptions{Event: "workflow_dispatch",
		Created: ">=" + since.Add(-2*time.Minute).UTC().Format(time.RFC3339), ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		opts.Page = 0
		for {
			runs, resp, err := b.c.Actions.ListWorkflowRunsByFileName(ctx, b.owner, b.name, b.opts.Workflow, opts)
			if err != nil {
				return nil, fmt.Errorf("github-actions: list runs: %w", err)
			}
			for _, r := range runs.WorkflowRuns {
				if r.GetDisplayTitle() == title {
					return r, nil
				}
			}
			if resp.NextPage == 0 {
				break
			}
			opts.Page = resp.NextPage
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: the run of %s did not appear within %s", errInfra, key, b.opts.FindTimeout)
		}
		if err := ctxsleep.Sleep(ctx, b.opts.PollInterval); err != nil {
			return nil, err
		}
	}
}

// waitRun polls run until it completes (or RunTimeout passes: the run is
// cancelled and it is an infrastructure error).
func (b *Backend) waitRun(ctx context.Context, run *gh.WorkflowRun) (*gh.WorkflowRun, error) {
	deadline := time.Now().Add(b.opts.RunTimeout)
	for run.GetStatus() != "completed" {
		if time.Now().After(deadline) {
			id := run.GetID()
			b.cleanup(func(ctx context.Context) error {
				_, err := b.c.Actions.CancelWorkflowRunByID(ctx, b.owner, b.name, id)
				return err
			}, "cancel run")
			return run, fmt.Errorf("%w: run %d still %s after %s", errInfra, id, run.GetStatus(), b.opts.RunTimeout)
		}
		if err := ctxsleep.Sleep(ctx, b.opts.PollInterval); err != nil {
			return run, err
		}
		r, _, err := b.c.Actions.GetWorkflowRunByID(ctx, b.owner, b.name, run.GetID())
		if err != nil {
			if ctx.Err() != nil {
				return run, ctx.Err()
			}
			b.log.Warn("github-actions: polling the run failed", "run", run.GetID(), "err", err)
			continue
		}
		run = r
	}
	return run, nil
}

// fetchResults downloads and reads the run's results artifact, then
// deletes it.
func (b *Backend) fetchResults(ctx context.Context, run *gh.WorkflowRun, key string) (*runner.BootOutcome, []byte, []byte, error) {
	want := "autosel-results-" + key
	arts, _, err := b.c.Actions.ListWorkflowRunArtifacts(ctx, b.owner, b.name, run.GetID(), &gh.ListOptions{PerPage: 100})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list artifacts: %w", err)
	}
	var art *gh.Artifact
	for _, a := range arts.Artifacts {
		if a.GetName() == want && !a.GetExpired() {
			art = a
		}
	}
	if art == nil {
		return nil, nil, nil, fmt.Errorf("%w: no artifact %s", errInfra, want)
	}
	u, _, err := b.c.Actions.DownloadArtifact(ctx, b.owner, b.name, art.GetID(), 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("artifact %d: %w", art.GetID(), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, nil, err
	}
	resp, err := b.c.HTTP.Do(req)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("artifact %d: %w", art.GetID(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, nil, fmt.Errorf("artifact %d: download: %s", art.GetID(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 2*maxBundleFile))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("artifact %d: %w", art.GetID(), err)
	}
	out, console, results, err := readResults(data)
	if err != nil {
		return nil, nil, nil, err
	}
	id := art.GetID()
	b.cleanup(func(ctx context.Context) error {
		_, err := b.c.Actions.DeleteArtifact(ctx, b.owner, b.name, id)
		return err
	}, "delete artifact")
	return out, console, results, nil
}
