package runner

import "github.com/autosel-bot/autosel-bot/internal/patchguard"

// Refusal says why a patch was not built (see internal/patchguard).
type Refusal = patchguard.Refusal

// Guard decides which patches may be built: git's own view of the paths,
// modes and contents they change, against runner.deny_paths/allow_paths
// and the host tools derived from the tree's Kbuild files.
type Guard = patchguard.Guard
