#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that only one thread at a time can reach, guarded by a `pthread_mutex_t`: the package's
/// replacement for `Synchronization.Mutex`, with the same call-site shape.
///
/// Why not `Mutex`: on Linux it locks with a raw futex, which ThreadSanitizer cannot see, so TSan
/// takes accesses a `Mutex` orders for unordered and reports false data races. TSan intercepts
/// `pthread_mutex_lock`, so accesses under `Locked` are ordered as they really are. (`Atomic`
/// needs no replacement: TSan understands atomics.)
///
/// Thread safety: any thread may call ``withLock(_:)``; the calls run one at a time, in no set
/// order. Not reentrant: calling ``withLock(_:)`` on the same lock from inside `body` deadlocks.
package struct Locked<Value>: ~Copyable {
    // Both on the heap: a `pthread_mutex_t` must not move once initialised, and a pointer gives
    // `body` its `inout` access without the exclusivity check a class property would cost.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// A lock guarding `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Waits for the lock, then runs `body` with the value and returns what it returns.
    /// - Throws: what `body` throws (the lock is released all the same).
    package borrowing func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let status = pthread_mutex_lock(mutex)
        assert(status == 0, "pthread_mutex_lock failed: \(status)")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    /// Runs `body` with the value if the lock is free, and returns what it returns; returns `nil`
    /// at once if another thread holds the lock.
    /// - Throws: what `body` throws (the lock is released all the same).
    package borrowing func withLockIfAvailable<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

// Safe: the value is reached only through `withLock`, one thread at a time, and `sending` keeps
// what goes in or comes out from staying shared with the caller (as for `Mutex`).
extension Locked: @unchecked Sendable {}
