"""The one way services read and write the item store: a unit of work over typed repositories.

`unit_of_work.UnitOfWork` collects the repositories' writes and `commit()` sends them as one
transaction (more writes than one takes are refused; `commit_in_parts` names the exception); the
repositories (`memory`, `pair`, `records`, `account`, `schedule`, `reads`) hand out `session.Versioned` domain
objects and own every key, version, condition, due-index attribute and vector field.
"""
