// What the session's API is made of below it comes with `import Huddle`: its events' type and `DisplayText`
// (HuddleBase), a directory transfer's report and the download folder (HuddleTransfers).
@_exported public import HuddleBase
@_exported public import HuddleTransfers
