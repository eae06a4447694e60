// Package offer models offers and the operations frameworks send back.
package offer
