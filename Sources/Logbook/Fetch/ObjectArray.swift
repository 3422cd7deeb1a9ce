/// Hands a fetch's objects to the app as an array of their class without copying it.
@usableFromInline
enum ObjectArray {
    /// `objects` as `[Model]`, the same storage: every array of class references has one layout
    /// whatever its element class, and on Linux Swift's own `as!` would copy the array (a retain
    /// and a release per object, about 5% of a 125,000-object fetch).
    /// - Precondition: every element is a `Model` (the fetch built it from `Model`'s binding);
    ///   checked in debug builds only.
    @inlinable
    static func reinterpret<Model: AnyObject>(_ objects: [AnyObject], as type: Model.Type)
        -> [Model]
    {
        assert(objects.allSatisfy { $0 is Model })
        return unsafeBitCast(objects, to: [Model].self)
    }
}
