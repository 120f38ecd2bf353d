//go:build !linux

package children

// procStart needs /proc: unknown here.
func procStart(int) (uint64, bool) { return 0, false }

// groupIsChats cannot tell a runner's group from a stranger's that reused
// its id without /proc: a dead runner's leftovers are left alone here.
func groupIsChats(int, uint64, string) bool { return false }

// chatProcs needs /proc: none found here.
func chatProcs(string) []int { return nil }
