package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/textfmt"
	"github.com/autosel-bot/autosel-bot/rules/all"
)

// newIndexCmd builds "index build|status|prune": the tree index (and the
// rules' summaries) that check --tree builds on first use, built ahead
// (for CI), listed per tree, or removed.
func newIndexCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index build|status|prune",
		Short: "Build, list or remove the cached tree indexes (index.cache_dir)",
		Long: `The index of a kernel tree (every function, its calls and ops tables) is
built on the first check --tree over that tree and cached in index.cache_dir
(default $XDG_CACHE_HOME/autosel-bot), with the rules' summaries when
index.summaries is on. "index build" builds it ahead, e.g. in a CI job before
the checks; "index status" lists what is cached per tree with its size and
age; "index prune" removes the cache of one tree, or of every tree (--all).`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newIndexBuildCmd(a), newIndexStatusCmd(a), newIndexPruneCmd(a))
	return cmd
}

// indexCacheDir is the cache directory of the configuration; an error
// when the cache is disabled.
func indexCacheDir(a *app) (string, error) {
	dir, err := index.CacheDirFor(a.cfg.Index.CacheDir)
	if err != nil {
		return "", &exitError{2, err}
	}
	if dir == "" {
		return "", &exitError{2, fmt.Errorf("index: the index cache is disabled (%s is \"-\")", keyName(a, "index.cache_dir"))}
	}
	return dir, nil
}

func newIndexBuildCmd(a *app) *cobra.Command {
	var tree string
	var summaries bool
	cmd := &cobra.Command{
		Use:     "build [--tree DIR] [--summaries]",
		Short:   "Index a kernel tree into the cache, as check --tree would on first use",
		Example: "  autosel-bot index build --tree ~/linux --summaries",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("tree") {
				tree = a.cfg.Check.Tree
			}
			if tree == "" {
				return &exitError{2, fmt.Errorf("index build: --tree is required (or check.tree)")}
			}
			if !cmd.Flags().Changed("summaries") {
				summaries = a.cfg.Index.Summaries
			}
			if _, err := indexCacheDir(a); err != nil {
				return err
			}
			return runIndexBuild(cmd, a, tree, summaries)
		},
	}
	cmd.Flags().StringVar(&tree, "tree", "", "kernel checkout to index (default from config check.tree)")
	cmd.Flags().BoolVar(&summaries, "summaries", false, "also compute the rules' summaries of the whole tree (default from config index.summaries)")
	return cmd
}

// runIndexBuild opens (builds or refreshes) the index of tree and, with
// summaries, runs every rule's Prepare over it.
func runIndexBuild(cmd *cobra.Command, a *app, tree string, summaries bool) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	if err := index.ValidateProgress(a.cfg.Index.Progress); err != nil {
		return &exitError{2, fmt.Errorf("%s %w", keyName(a, "index.progress"), err)}
	}
	if wantProgress(a.cfg.Index.Progress, "text", stderr) {
		a.progress = newProgressBars(stderr)
		defer a.progress.wait()
	}
	defer treeGC()()
	// The index's second pass is a stage of its own.
	ix, err := index.Open(a.progress.stages(ctx), tree, a.indexOptions(a.log))
	a.progress.wait()
	if err != nil {
		return &exitError{2, err}
	}
	defer ix.Release()
	if summaries {
		rs, err := all.Rules(a.cfg.Rules)
		if err != nil {
			return &exitError{2, err}
		}
		for _, r := range rs {
			if r.Prepare == nil {
				continue
			}
			if err := r.Prepare(a.progress.stages(ctx), ix, a.log); err != nil {
				return fmt.Errorf("index build: rule %s summaries: %w", r.Name, err)
			}
		}
	}
	a.progress.wait()
	st := ix.Stats
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d files (%d scanned, %d cached), %d functions in %s; cache %s\n",
		ix.Root, st.Files, st.Scanned, st.Cached, st.Funcs, st.Duration.Round(time.Millisecond), st.CacheFile)
	return nil
}

func newIndexStatusCmd(a *app) *cobra.Command {
	var tree string
	cmd := &cobra.Command{
		Use:   "status [--tree DIR]",
		Short: "List the cached indexes per tree with their size and age",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := indexCacheDir(a)
			if err != nil {
				return err
			}
			var ents []index.CacheEntry
			if tree != "" {
				e, ok, err := index.CachedTree(dir, tree)
				if err != nil {
					return &exitError{2, err}
				}
				if ok {
					ents = append(ents, e)
				}
			} else if ents, err = index.Cached(dir); err != nil {
				return &exitError{2, err}
			}
			writeIndexStatus(cmd.OutOrStdout(), dir, ents, time.Now())
			return nil
		},
	}
	cmd.Flags().StringVar(&tree, "tree", "", "list only the cache of this tree")
	return cmd
}

// writeIndexStatus writes one line per cached tree: its directory (or
// key when unrecorded), size, age and number of files.
func writeIndexStatus(w io.Writer, dir string, ents []index.CacheEntry, now time.Time) {
	fmt.Fprintf(w, "cache %s: %s\n", dir, textfmt.Plural(len(ents), "tree", "trees"))
	var total int64
	for _, e := range ents {
		name := e.Tree
		if name == "" {
			name = e.Key + " (tree not recorded)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s old\t%s\n", name, humanBytes(e.Size), age(now.Sub(e.Modified)),
			textfmt.Plural(len(e.Files), "file", "files"))
		total += e.Size
	}
	if len(ents) > 1 {
		fmt.Fprintf(w, "total\t%s\n", humanBytes(total))
	}
}

func newIndexPruneCmd(a *app) *cobra.Command {
	var tree string
	var every bool
	cmd := &cobra.Command{
		Use:     "prune --tree DIR | --all",
		Short:   "Remove the cached index and summaries of one tree, or of all trees",
		Example: "  autosel-bot index prune --tree ~/linux\n  autosel-bot index prune --all",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (tree == "") == !every {
				return &exitError{2, fmt.Errorf("index prune: give either --tree DIR or --all")}
			}
			dir, err := indexCacheDir(a)
			if err != nil {
				return err
			}
			var ents []index.CacheEntry
			if every {
				if ents, err = index.Cached(dir); err != nil {
					return &exitError{2, err}
				}
			} else {
				e, ok, err := index.CachedTree(dir, tree)
				if err != nil {
					return &exitError{2, err}
				}
				if ok {
					ents = append(ents, e)
				}
			}
			out := cmd.OutOrStdout()
			for _, e := range ents {
				freed, err := index.Prune(cmd.Context(), dir, e)
				if err != nil {
					return fmt.Errorf("index prune: %w", err)
				}
				name := e.Tree
				if name == "" {
					name = e.Key
				}
				fmt.Fprintf(out, "removed %s (%s)\n", name, humanBytes(freed))
			}
			if len(ents) == 0 {
				fmt.Fprintf(out, "nothing cached in %s\n", dir)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tree, "tree", "", "remove the cache of this tree")
	cmd.Flags().BoolVar(&every, "all", false, "remove the cache of every tree")
	return cmd
}

// humanBytes formats n bytes with a binary unit ("350.2 MiB").
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// age formats d coarsely: seconds, minutes, hours or days.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
