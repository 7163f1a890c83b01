//! Nothing but the benchmarks (`benches/`): the evaluator's timings, and the evaluator beside a
//! peer, on the seeded hands of `rust/core/measure/`.
