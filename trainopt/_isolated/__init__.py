"""trainopt's private copy of its internals, loaded only when their plain names clash (see ``trainopt._boot``)."""
