/** What the client says to the player outside the screens' own labels: the
messages (toasts), form errors and banners of the protocol side (rooms.js,
frames.js, commands.js, field.js, tournament.js, tfield.js, player.js), the table's
input (input.js) and the start-up (main.js). One place, so that a sentence
is found, reworded or translated once. A screen's labels and sentences are
in its view (views/), next to the element they name. */

export const TEXT = {
  // the connection
  connecting: 'Connecting…',
  reconnecting: 'Connection lost: reconnecting…',
  taken: 'This seat was opened in another tab or device.',
  playHere: 'Play here',
  offline: 'Not connected: wait a moment and try again.',
  lostWhileEntering: 'The connection was lost: try again.',
  joiningRoom: 'Joining the room…',
  openingTournament: 'Opening the tournament…',
  oops: 'Something went wrong on this page: if the table looks wrong, reload it.',

  // a room
  removedByHost: 'The host removed you from the room.',
  leftRoom: 'You left the room.',
  roomGone: (room) => `Room ${room} is gone (or never was).`,
  seatLost: 'That seat is no longer yours: join the room again.',
  ownRace: (room) => `You race in room ${room}: watching it would show you your own face-down cards. `
    + 'Go back to your table, or watch once the race is over.',
  rollback: 'The server lost its latest moves: the race goes on from where it stands.',
  rematch: 'Rematch! A new deal is waiting.',
  youAreHost: 'You are the host now.',
  nobodyInRoom: (nickname) => `Nobody is called ${nickname} in this room.`,

  // the own game
  noUsefulMove: 'No useful move: draw, undo or resign.',
  queueFull: 'Waiting for the server: that one was not taken.',
  noMorePasses: 'No more passes through the stock.',
  nothingToDraw: 'Nothing left to draw.',
  nothingToPick: 'Nothing to pick up there.',
  cannotGo: (card, where) => `${card} can't go ${where}.`,
  toFoundation: (suit) => `to the ${suit} foundation`,
  onCard: (card) => `on ${card}`,
  onEmptyColumn: 'on an empty column',
  there: 'there',
  noMove: (card) => `${card} has no move.`,

  // a tournament
  withdrawn: 'You have withdrawn from the tournament.',
  holdsOrganizerKey: 'This device now holds the organizer\'s key.',
  noLongerRegistered: 'This browser is no longer registered in the tournament: you are watching it.',
  noTournament: (id) => `There is no tournament ${id} (or it is over and gone).`,
  badHandoff: 'That code is wrong, used or expired: ask for a new one.',
  removedByOrganizer: 'The organizer removed you from the tournament: you can still watch it.',

  // the player this browser is
  playerMovedHere: (nickname) => `This device now plays as ${nickname}.`,
  playerForgotten: 'You are forgotten: your profile, history and key are deleted.',
  badDeviceCode: 'That code is wrong, used or expired: make a new one on the other device.',
};
