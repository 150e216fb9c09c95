// What the session's API is made of below it (its events' type, `DisplayText`) comes with `import Huddle`.
@_exported public import HuddleBase
