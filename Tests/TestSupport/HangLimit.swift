public import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a test that runs brokers, processes or services: a bound for a hang, far
    /// above what the test takes while every suite runs at once on two busy cores (a test's clock
    /// runs while it waits its turn for a thread). How fast something runs is the benchmarks' to say.
    public static var hangLimit: Self { .timeLimit(.minutes(10)) }
}
