import Logbook

/// Logbook's side of the Objects group. Empty until the object layer (issue 3) is on main.
var logbookStores: [any EmployeeStore.Type] { [] }
