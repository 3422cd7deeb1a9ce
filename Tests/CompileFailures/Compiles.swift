// expect: compiles
// The allowed spellings, so a refusal below is the misuse's and not a broken setup.
import Foundation
import Logbook

@MainActor func onTheMainActor(_ container: ModelContainer) throws {
    container.mainContext.insert(Note())
    try container.mainContext.save()
}

func inADetachedTask(_ container: ModelContainer) {
    Task.detached {
        let context = ModelContext(container)
        context.insert(Note())
        try context.save()
    }
}

func aNoteByIdentifier(_ note: Note, _ container: ModelContainer) {
    let id = note.persistentModelID
    Task.detached { _ = try ModelContext(container).model(for: id) as Note? }
}
