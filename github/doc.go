// Package github reviews GitHub pull requests with the bot's pipeline.
//
// The flow: Watcher polls the open pull requests of the configured
// repositories (and, with WebhookHandler mounted, polls at once when a
// signed pull_request event arrives). Each head commit not handled yet
// goes to a worker (publish.go): the in-progress check run is created
// (checkrun.go), the PR's commits are fetched as format-patch text and
// turned into a series with the PR description as cover letter
// (source.go), the pipeline analyses it, and BuildReview (review.go)
// renders the report as a review (report.WriteMarkdown summary plus line
// comments where findings land on lines of the PR diff, diffmap.go) and
// check run annotations. The review is posted, the check run completed,
// and reviews of older heads of the same PR are marked outdated.
//
// State is one store.PullRequest row per PR head. Every posting step is
// recorded before its request goes out, and the bot looks on GitHub for
// what an earlier attempt may have created (check run by external id,
// review by a hidden head marker) before creating it, so a crash or a
// restart never posts twice; the review is computed once and stored, so a
// resumed head posts exactly what the first attempt would have.
//
// The REST client (client.go) is go-github behind two transports:
// etag.go makes GETs conditional (a 304 costs no rate limit) and
// transport.go adds the token (GitHub's hosts only), retries 5xx answers
// of idempotent requests with backoff, waits out primary
// (X-RateLimit-Remaining: 0 until X-RateLimit-Reset) and secondary
// (Retry-After) rate limits, and spaces mutating requests.
//
// Tests run against internal/ghfake, an in-process fake of the REST API.
package github
