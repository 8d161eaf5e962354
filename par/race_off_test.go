//go:build !race

package par_test

const raceEnabled = false
