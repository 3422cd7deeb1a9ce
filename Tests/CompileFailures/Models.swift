// Shared by the snippets below (not a snippet itself): the model they use.
import Foundation
import Logbook

final class Note: PersistentModel {
    @Attribute var text = ""
    init() {}
}
