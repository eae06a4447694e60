// Package reclaim chooses the tasks to end so that a pending task of a
// role owed more can run (the allocator's Options.Reclaim). Mesos never
// did this: a guarantee was kept there only with free resources, and a
// role below it waited for other roles' tasks to end by themselves.
//
// Reclaim makes room for what waits, never for an aggregate: a role
// reclaims only for a pending task one of its frameworks stated (the
// allocator's UpdateDemand), and only on one agent, where the task fits
// once the victims end. Without stated demand it does nothing. Freeing
// quantities the taker might not be able to use (the design before this
// one) ended tasks whose resources were then declined, offered back and
// taken again: a storm. Kueue and YuniKorn preempt the same way, for one
// pending workload that must fit once its victims are gone.
//
// # What a run does
//
// At the end of an allocation run (State.Reclaim), in this order:
//
//  1. Earlier choices are kept, dropped or withdrawn. A choice whose task
//     ended or whose time ran out (Run.Timeout) is dropped. A group (the
//     victims chosen together for one pending task) is withdrawn, and
//     returned for the host to cancel, when its need went: the framework
//     left, or no longer states as many such tasks as there are groups
//     for them (a task offered is counted off its statement), the task
//     fits what is free on some agent now, as far as the allocator would
//     let the role have it (an agent came, resources were given back),
//     the role the room is held in or an ancestor could no longer hold
//     the task within its limits (a limit lowered, or the role consumes
//     more; see Limits below), or, for a guarantee, the role no longer
//     lacks any resource the task needs (its quota changed, or the
//     groups before it cover it).
//  2. Guarantees: each role below its own guarantee, sub-roles before
//     their parents, makes room for the pending tasks of its subtree's
//     frameworks, in the order its framework sorters would offer them,
//     while its unmet guarantee still lacks a resource the next task
//     needs (at most MaxGroupsPerRole a run). What the pending groups'
//     tasks will take counts against the unmet guarantee of the role
//     they are held in and of each ancestor, so a guarantee on team and
//     one on team/x are met together, not one after the other. A task
//     that fits what is free somewhere, as far as the allocator would
//     let its role have it (Run.Holdable), is not made room for: it
//     waits for an offer. Nor is one that fits, on one agent, what is
//     free and what the pending groups' victims there free beyond their
//     rooms: it waits for them to end, and counts on its part of what
//     they free (one victim larger than the tasks waiting makes room for
//     several, not one each).
//  3. Fair share (Mode FairShare): each role, in path order, that was
//     offered nothing in the run, has no group pending for it and had
//     nothing chosen for it in this run or the one before, makes room for
//     its first pending task that fits nowhere free (nor where pending
//     victims will free it, as above), taking only from roles whose
//     weighted share is above its own and only if, after the move (the
//     task's quantities added to the taker, the victims' frees taken
//     from their roles), its share is still at or below each victim
//     role's, and no victim role that waits for tasks is below another
//     role that was at or below it before the move (it would take from
//     that role in turn). What the victims free beyond the room goes
//     back to the pool, where the taker, below them, may well be offered
//     it: the move counts it as the taker's too, as far as the taker's
//     frameworks state more tasks. No later run can then take the room
//     back by the same rule while the shares stay as the move left them:
//     the victim roles stay at or above the taker, and go below no role
//     they were not below already.
//     Victims are never taken from a role with room pending for it or
//     chosen for it in this run or the one before. Room is for the role
//     it was chosen for and for each role between it and the role it is
//     held in: a room held in team/x for team's guarantee keeps team/x
//     from giving to fair share, and from taking by it, as it keeps
//     team.
//
// # Limits
//
// A pending task is a reason to end tasks only if the room could be held
// for it: once the victims end, the role it is held in and each ancestor
// with a limit must hold the task within its limit, in each resource the
// task needs. Freed room that a limit caps (at what the limit leaves,
// possibly nothing) would end tasks for no gain. Victims inside a limited
// role's subtree give back what they consume: a room for team/x made by
// ending a task of team/old costs a limited team nothing. So where the
// task would pass a limit, the group's victims in that role's subtree
// must free what passes it; a limited role in the taker's own subtree
// (the role the room is held in, or one between it and the taker) has no
// victims to give, and no room is made.
//
// Victims end in any order, and what a room holds is held as they end.
// So a role's consumption is counted with the most the other pending
// groups held in its subtree can add to it before their victims have all
// ended: the part of their task held at once, and the rooms of their
// victims outside the role's subtree (a victim inside it gives back at
// least the room its end holds). A group counts on its own victims only:
// one whose victims are all outside a limited role never counts on
// another group's victims inside it, which may end after its own. And a
// new group must leave the others their room in turn: with the most it
// can add, and the most all the groups but one can add, the one that
// ends last still fits.
//
// # Which victims
//
// A room is made on one agent the taker's framework could be offered: the
// task's quantities less what is free there (the agent's unreserved,
// non-revocable scalars neither offered nor allocated) is what is
// missing, and the victims' frees (each task's unreserved, non-revocable,
// non-shared scalars) must cover it. What is free counts only as far as
// the allocator can hold it for the task at once (Run.Holdable): not
// what it keeps for other roles' guarantees, nor what the limits of the
// role the room is held in, as they are before the victims end, do not
// leave; freed room that the task cannot use in full ends tasks for
// nothing. Of the sets that do, on any agent: the fewest tasks; then
// the least freed beyond what is missing (each resource as a part of the
// cluster's total); then the more victims on revocable resources; then
// the youngest (compared youngest first); then the first agent by id.
// The search is exhaustive for sets of up to
// ExactVictims tasks (tasks alike in role and frees are tried once); a
// room that needs more is covered greedily and then pruned, so that no
// victim in it can be dropped.
//
// A victim's role is never in the taker's subtree (whose consumption
// counts as the taker's already), and a set is never chosen if its end
// would take a victim's role, or an ancestor of it, below its guarantee
// in a resource the set frees, counting what the pending choices free
// already. An ancestor shared with the role the room is held in loses
// nothing: the room gives back what the victims took away. The set must
// also free what the limits ask (see Limits); a greedy cover takes first
// the candidates that cover most of what is missing on the agent and of
// what the limits ask.
//
// # After the choice
//
// The allocator returns the choices as Result.Preemptions and the
// withdrawn ones as Result.Withdrawn. When a chosen task ends, what it
// frees of its room (Choice.Room: the victims of a group split what was
// missing between them, youngest first) is held for the framework in the
// role it was chosen for, within what that role's quota limits leave,
// and offered to it at the next run; the rest goes back to the pool.
// What a victim cannot hold of its room (a limit is reached until the
// group's other victims end), and what of the free part the allocator
// could not hold at once, is added to the Room of a victim of the group
// not ended yet; the last one to end holds what is left from what is
// available on the agent.
//
// The invariants it owns: every choice belongs to a group numbered at
// most State.Groups; a choice's Room is within its Task; no two groups
// stand for more pending tasks of a framework's statement than it states
// at the start of a run; and every choice it makes keeps the guarantees
// above and the limits of the role its room is held in and of its
// ancestors.
package reclaim
