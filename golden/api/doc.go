// Package api holds the golden list of cugen's exported API: every exported
// name of the module's public packages (all but cmd/, examples/, golden/
// and internal/ ones), with its kind and type, in api.txt. TestAPI fails
// when the list and the code differ: an added name or a changed type is
// taken into the list with go test ./golden/api -update (review the diff,
// note it in CHANGELOG.md); a removed one is refused, with -update too,
// unless the list already marks it deprecated (its doc comment had a
// "Deprecated:" paragraph when the list was last updated) and CHANGELOG.md
// names it. So a name leaves the API in two steps, a release apart: deprecate
// it (the list records that), then remove it.
package api
