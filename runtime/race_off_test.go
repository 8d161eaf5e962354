//go:build !race

package runtime

const raceScale = 1
