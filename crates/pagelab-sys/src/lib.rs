//! The timed system model.
