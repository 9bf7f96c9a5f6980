// Package lava is the runner backend "lava": kernels are built here (as the
// local backend builds them), booted by a LAVA lab (the scheduler KernelCI's
// labs run), and the results frames come back in the job log to be
// evaluated here with the local backend's verdict code.
//
// Per kernel (baseline or patched) the backend submits one job through
// LAVA's REST API v0.2 (token auth): deploy the bzImage and the suite
// initramfs to tmpfs, boot method qemu on the configured device type (the
// device dictionary decides KVM or TCG), and a monitor test action that
// waits for init's hello and done markers. The guest runs with
// runner.ConsoleResultsArg, so its frames are in the console part of the
// job log; runner.SplitConsole turns the log back into the two logs of a
// local boot. Timeouts come from the runner's boot spec: the connection
// timeout is the silence watchdog, the test action timeout the run's total.
//
// The artifacts reach the dispatcher over HTTP: either the backend's own
// file server (lava.serve_addr, random per-job paths, removed after the
// job) or a shared directory published under a URL prefix (lava.share_dir
// and lava.share_url).
//
// Jobs are followed by polling with backoff; with lava.events the backend
// also reads LAVA's event stream (a minimal ZeroMQ SUB client, zmtp.go) and
// polls a job as soon as an event names it. Guest behaviour (a hang that
// trips a LAVA timeout, a panic that ends QEMU) is a result; a job that ends
// without guest output, an Incomplete job with an infrastructure, bug or
// configuration error, a job whose worker went offline (lost dispatcher) and
// a job no online device can take are infrastructure errors (ErrInfra): the
// Runner retries them (runner.retries) and then reports infra-error, never a
// regression. At most lava.max_in_flight jobs are in flight; baselines are
// cached per kernel image (tree, commit and config) and tests; jobs still
// going when the context ends are cancelled. Collector exports the queue
// depth, jobs in flight, job latency and outcomes.
package lava
