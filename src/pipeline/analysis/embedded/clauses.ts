// Speech-act reading of one sentence: splits it into clauses and says, for each clause, whether it
// is a commitment ("I'll call you back"), a request ("can you send me", "please email"), a
// proposal ("does Thursday at ten work?"), an acceptance ("works for me"), a plan of a third party
// ("the new card will arrive within five days") or nothing actionable, and what the verb phrase is.
import nlp from 'compromise';
import type { Unit } from './text.js';
import { anyOf, KIN } from './words.js';

export type ClauseKind = 'commit' | 'soft' | 'request' | 'joint' | 'desire' | 'proposal' | 'accept' | 'future' | 'other';

export interface Clause {
  kind: ClauseKind;
  /** The clause with contractions expanded, case kept. */
  text: string;
  /** The verb phrase after the subject and modal ("send the quote tomorrow morning"). */
  vp: string;
  /** Base form of the main verb, lower case ("send"). */
  verb: string;
  /** Said under a condition ("if anything else looks wrong, call us"). */
  conditional: boolean;
  /** Said with a subordinate "when/once/after ..." clause that ties it to another event. */
  whenClause: boolean;
  /** Character offset of `text` inside the unit's expanded text. */
  offset: number;
  negated: boolean;
  /**
   * Read as a request only from words a recogniser garbled ("and you pick me up" for "can you pick
   * me up"): it holds only if the addressee's next turn takes it on ("Sure, I'll be there").
   */
  needsAnswer?: boolean;
  /** A generic promise ("I'll do it") read as the need the other party just stated (actions.ts). */
  tookOn?: boolean;
  /**
   * Read as no errand on purpose (one's own details, where to reach someone, an idiom, a note made
   * there and then), not for want of a known phrasing: the speech-act model leaves it alone.
   */
  ruledOut?: boolean;
  /** The index of the unit whose need a generic promise took on. */
  tookOnFrom?: number;
  /** The modal of a first-person commitment ("will", "can", "need to"), when one was said. */
  modal?: string;
}

const EXPANSIONS: Array<[RegExp, string]> = [
  [/\bwon't\b/gi, 'will not'],
  [/\bcan't\b/gi, 'can not'],
  [/\bshan't\b/gi, 'shall not'],
  [/\blet's\b/gi, 'let us'],
  [/\b(\w+)n't\b/gi, '$1 not'],
  [/\b(i|you|we|they|he|she|it|that|there)'ll\b/gi, '$1 will'],
  [/\b(i|you|we|they)'ve\b/gi, '$1 have'],
  [/\b(i|you|we|they|he|she|it|that|this|there|who|what)'d\b/gi, '$1 would'],
  [/\bi'm\b/gi, 'I am'],
  [/\b(you|we|they)'re\b/gi, '$1 are'],
  [/\b(it|that|what|there|here|he|she|who|where)'s\b/gi, '$1 is'],
];

/** Contractions expanded with case kept ("I'll" -> "I will"). */
export function expand(text: string): string {
  let s = text.replace(/[’‘]/g, "'");
  for (const [re, rep] of EXPANSIONS) s = s.replace(re, rep);
  return s.replace(/\s+/g, ' ').trim();
}

// Discourse markers that open a clause without being part of it (and the hesitations of spontaneous
// speech, "and, um, can you ...", which hide the request after them; and the lead-in of a recap,
// "so just to confirm: I'll approve the invoices by Friday", which hid the promise after it).
// The ambiguous ones ("look", "right", "well") only count when a comma follows, so "Look at the
// report" stays an imperative.
const MARKER = /^(?:(?:yes|yeah|yep|yup|for sure|you got it|sure thing|sure|okay|ok|oh|ah|well|great|perfect|fine|alright|all right|right|no problem|got it|understood|of course|look|listen|honestly|hi|hello|hey|thanks|thank you|cool|good|excellent|wonderful|absolutely|definitely|certainly|no worries|sounds good|come on)\s*[,.!]\s*|(?:just\s+)?(?:to (?:confirm|recap|summari[sz]e|sum up|be clear)|so we are clear|for the record)\s*[:,]?\s+|(?:I was (?:gonna|going to|just going to) ask|quick question|one (?:more|last) thing|while I have you|before I forget|(?:I )?tell you what)\s*[:,]?\s+|(?:go on|go on then|you know what|I mean)\s*[,.!]\s*|(?:and|but|so|then|just|also|actually|and then|oh and|plus|um|uh|erm|er|uhm|hmm|honestly)[,]?\s+)+/i;
// The same "look" / "listen" in a recogniser's text, which has no comma: a marker when a clause with
// its own subject and finite verb follows ("look the boiler company can not come until Wednesday"),
// since the imperative takes a particle or an object and no second verb ("look at the report", "look
// the part number up").
const HEARD_MARKER =
  /^(?:look|listen)\s+(?=(?:the|a|an|my|your|our|their|his|her|this|that|these|those|i|we|you|they|he|she|it|there)\s+(?:\S+\s+){0,3}?(?:can|cannot|will|would|shall|is|are|was|were|has|have|had|did|does|do|should|must|might|may|could)\b)/i;
// A recogniser writes no comma after an answer word either: "good I need to remember to clear the
// driveway", "okay I will send it tonight", "sure can you text me the code". The word opens the
// clause without being part of it when a first-person subject and its modal (or a request's opening)
// follows; "fine print", "right now", "sure enough", "okay I see" and "yes please, go ahead" (consent)
// stay as said. ("for sure text me your schedule", "okay send us the photos": an instruction to
// contact or send to the speaker opens after the word as well, and so does a suggestion: "absolutely
// why don't you call me back next week".)
const HEARD_ANSWER_WORD =
  /^(?:(?:yes|yeah|yep|yup|sure|for sure|okay|ok|oh|great|perfect|fine|alright|all right|good|cool|excellent|no problem|got it|sounds good|thanks|thank you|absolutely|definitely|certainly|of course)\s+)+(?=(?:i|we)\s+(?:will|can|need|have to|am going to|are going to|should|must|shall|would|could|just need)\b|please\s+[a-z]|(?:can you|could you|would you|will you|let me|let us|why do not you|why don't you|how about you|if you could)\b|(?:call|ring|phone|text|message|whatsapp|email|e-mail|mail|send|forward)\s+(?:me|us)\b)/i;
const VOCATIVE_END = /,\s*[A-Z][a-z]+\s*[.?!]?$/;

const PLEASANTRY = /^(have a\b|see you|talk (to you )?soon|speak soon|take care|thank|bye|goodbye|enjoy|hang on|hold on|excuse|sorry|welcome|good (morning|afternoon|evening|night|luck)|congrat|guess|imagine|mind you|wait|look forward|looking forward|keep me posted|be well|stay safe|happy to help|(?:(?:I am|I'm|I was)\s+)?(?:happy|glad) to do (?:it|that|this)[.!]*$)/i;
const PURPOSE_OF_CALL = /^(calling|phoning|ringing|reaching out|writing|following up|checking in) (about|from|with|to|because|regarding|back|on behalf|for|in)\b|^(speaking|looking forward|sorry|glad|happy|afraid|here|fine|good|okay)\b/i;
// "Please confirm your mailing address by email to ...": said or spelled on the call is no task, sent
// on a channel afterwards is
const BY_CHANNEL = /\b(?:by|via|over|in an?) (?:e-?mail|text|message|writing|letter|mail|fax)\b|\bin writing\b/i;
// Good wishes passed on ("tell him to feel better", "say hi to your mom", "give the puppy a hug for
// me") are no errand.
// "Give it until Saturday", "give it a couple of days": waiting, not handing anything over
const WAIT_IT_OUT = /^(?:just\s+)?give\s+(?:it|them|that|things)\s+(?:until|till|another|(?:a|an)\s+(?:few|couple|day|week|bit|while|little|hour|minute)|\d+|one|two|three|four|five|six|seven|a)\b/i;
const WELL_WISHES = /^(?:please\s+)?(?:tell|give|send)\s+.{0,40}?\b(?:to feel better|to get well|(?:that )?I said (?:hi|hello)|my (?:best|love|regards|thanks))|^say (?:hi|hello)\b|^(?:please\s+)?give\s+.{1,30}?\s+a\s+(?:big\s+)?(?:hug|pat|kiss|cuddle|squeeze|scratch|belly rub)\s+(?:for|from)\s+me\b/i;
// "Ask for Linda at the desk", "use my cell, 555 ...": how to reach someone, not an errand
const HOW_TO_REACH = /^(?:[Jj]ust\s+)?(?:[Aa]sk for\s+(?:[A-Z][a-z]+|me|us)\b|[Uu]se (?:this|that|my|me|the|our)?\s*(?:(?:work|home|personal|private|office|new|other|old|main|direct)\s+)?(?:e-?mail|address|number|cell|mobile|line|one)\b|[Uu]se \S+@\S+|[Uu]se (?:\+?\d[\d -]{6,}\d)\s*[.!]?$)/;
// ("come on, tell me": news asked for there and then)
const INFO_REQUEST = /^(hear|repeat|say|spell|hold|explain|describe|confirm|clarify|tell me (more|about|what|how|if|whether|why|when|where|who)|tell (?:me|us)(?=\s*[.!?]*$)|give me a (second|moment|minute|sec)|see|imagine|believe|understand)\b/i;

const HEDGED_PROMISE = /^(?:(?:yeah|yes|well|okay|ok|um|uh|erm|hmm)[,.]?\s+)*(?:I|we)\s+(?:guess|suppose|think|reckon|figure)(?:\s+that)?,?\s+(?=(?:I|we)\s+(?:can|could|will|shall|am going to|are going to|am gonna|are gonna)\s)/i;
const SUBJECT_MODAL =
  /^(I|we|We)\s+(will need to|will just have to|will just need to|just have to|just need to|have just got to|have got to|still have to|still need to|also have to|also need to|will|shall|am going to|are going to|am gonna|are gonna|plan to|intend to|promise to|am happy to|are happy to|would be happy to|will be happy to|am about to|will make sure to|will be sure to|can|could|may|might|need to|have to|must|should|will try to|am planning to|are planning to|will have to|had better|would better|better)\s+(.+)$/i;
const PROGRESSIVE = /^(I|we|We)\s+(am|are)\s+(\w+ing)\b\s*(.*)$/i;
// ("let me write that down": a note taken while the other party dictates, not an errand)
const LET_ME = /^let me\s+(?!know\b)(?!see\b|think\b|(?:write|jot|note|take|get|put) (?:that|it|this|them|those) down\b|check (?:that|this|it|now)\b|check\s*[.!]?$|check (?:my|the|our) (?:calendar|diary|schedule|availability)\s*[.!]?$|have a look\b|take a look\b|look (?:that|it|this) up\b|(?:pull|bring|look) (?:\w+ ){0,2}up\b|find (?:that|it|this)\b|grab\b|just\b|explain\b|ask\b)(.+)$/i;
const LET_US = /^let us\s+(.+)$/i;
const HAPPY_TO = /^(?:(?:I|we)\s+(?:am|are|would be|will be)\s+)?(?:happy|glad|more than happy)\s+to\s+(.+)$/i;
// ("could someone pick her up within the hour?": someone on the listener's side, asked through them;
// "will someone get back to me?" asks what will happen)
const REQUEST_Q = /^(?:(?:can|could|would|will)\s+you|(?:can|could|would)\s+(?:someone|somebody|anyone|anybody))\s+(?:please\s+|kindly\s+|maybe\s+|possibly\s+|also\s+|just\s+)?(?:be able to\s+|be so kind as to\s+)?(?!like\b|mind\b)(.+?)[?.!]*$/i;
// The indirect ways of asking: "if you could send me the contract, that would be great", "any chance
// you could call the supplier?", "I was wondering if you could ...", "do you think you could ...",
// "would it be possible for you to ...", "can I get you to ...", "mind sending ...?"
const INDIRECT_REQUEST = new RegExp(
  '^(?:' +
    [
      '(?:it would (?:really )?help|it would be (?:great|good|helpful|nice|ideal|awesome|perfect|lovely|amazing|brilliant|fantastic|a (?:big |huge |real )?help)|I would (?:really |so )?appreciate(?: it)?|I was (?:just )?wondering|I wonder|I am wondering|I was hoping|I am hoping)\\s+if\\s+(?:you|someone|somebody|one of you)\\s+(?:could|can|would|might|are able to)',
      // ("if you would like, I can ...": the condition of an offer, not a request)
      '(?:if|when)\\s+you\\s+(?:could|can|would(?!\\s+(?:like|prefer|rather|want|not mind)\\b)|get a chance to|have a (?:sec|second|minute|moment|chance) to)(?=.*(?:,|\\bthat would\\b|\\bthat will\\b|\\bthanks?\\b|\\bplease\\b|\\bgreat\\b|$))',
      '(?:is there )?any chance (?:that )?you (?:could|can|would|might)',
      // "I was hoping you could help me carry the heavy stuff": the hope is the request
      '(?:I|we) (?:was|were|am|are) (?:just |really )?hoping (?:that )?you (?:could|can|would|might|will)',
      // ("reckon you could clear the bathroom by Sunday?": the Australian and British question
      // without its "do you")
      '(?:(?:do|did) you (?:think|reckon|suppose)|(?:you |I )?reckon) (?:that )?you (?:could|can|would|might)',
      '(?:is|would) there (?:any way|a way|a chance) (?:that )?you (?:could|can|would|might)',
      // a request passed on: "my dad asked if you could call him about the sofa"
      '(?:(?:my|your|our|the|his|her)\\s+)?[a-z]+\\s+(?:asked|was asking|is asking|wants to know|wanted to know|was wondering|wondered)\\s+(?:if|whether)\\s+you\\s+(?:could|can|would|might)',
      '(?:are|were) you able to',
      '(?:would|will|is) it be possible (?:for you )?to|is it possible (?:for you )?to',
      '(?:can|could|may) I (?:get|ask|have) you to',
      'how about you|why do not you|why not',
    ].join('|') +
    ')\\s+(?:please\\s+|just\\s+|maybe\\s+|possibly\\s+|also\\s+)?(.+?)(?:,?\\s*(?:that would|that will|it would) be\\s.*|,?\\s*(?:thanks|thank you)(?: so much)?|,\\s*(?:it|that|which)\\s+(?:would\\s+|will\\s+|really\\s+)?(?:saves?|helps?|makes?|speeds?)\\b.*)?[?.!]*$',
  'i',
);
// "Do me a favor and call the bank": the favour asked is the verb after it
const FAVOR = /\b(?:(?:could you |can you |would you )?do me a (?:favou?r|solid)|be a (?:dear|star|love))\s*(?:,|and)\s*/gi;
// "Note to self: water the plants", "mental note, ...": a reminder of the speaker's own
const NOTE_TO_SELF = /^(?:(?:\w+\s+)?note to self|(?:I will )?make a (?:mental )?note|mental note)\s*[,:-]?\s*(?:to\s+)?(.+)$/i;
// "Call you back in ten", "Text you the address tonight": a contact verb whose object is the listener,
// said with no subject, is the speaker's own promise ("I'll"), not an order
const SELF_TO_YOU = /^(?:call|ring|phone|text|email|e-mail|message|send|ping|get back to|shoot|drop|forward|mail|whatsapp)\s+you\b/i;
const MIND_DOING = /^(?:do you )?mind\s+(\w+ing)\b\s*(.*?)[?.!]*$/i;
// A commitment with its subject dropped, as terse speakers say it: "Will send it tonight.", "Gonna
// call them tomorrow.", "Sending it now."
const BARE_COMMIT = /^(?:will|gonna|going to|shall)\s+(?!not\b|be\b|do\b|have\b)(.+)$/i;
const BARE_PROGRESSIVE = /^(?!(?:checking|wondering|hoping|thinking|calling|looking|trying|going|getting|being|having|doing|feeling|saying|asking|speaking|ringing|phoning|following|reaching)\b)([a-z]+ing)\s+((?:you|it|them|him|her|the|a|an|your|my|our|this|these|those|over|out|now|that over|that now|that across)\b(?!.*\b(?:would be|will be|is|was|sounds|seems|works|makes)\b).*)$/i;
// The speaker's promise said from the other side: "you will have the invoice by Thursday", "you'll
// hear from me tomorrow", "expect an email from me with the photos tonight"
// (not time given: "you'll have till the end of January", "you'll have two weeks to pay")
const YOU_WILL_HAVE = /^you\s+(?:will|are going to|should|shall)\s+(?:have|get|receive|see)\s+(?!to\b|until\b|till\b|(?:plenty of |enough |more |some )?time\b|(?:a|an|one|two|three|four|five|six|seven|ten|fourteen|thirty|a few|a couple of|\d+)\s+(?:more\s+)?(?:days?|weeks?|months?|hours?)\b)(.+?)(?:\s+from\s+(?:me|us))?(\s+.*)?$/i;
const YOU_WILL_HEAR = /^you\s+(?:will|are going to|should)\s+hear (?:back )?from\s+(?:me|us)\b\s*(.*)$/i;
const EXPECT_FROM = /^(?:you can |you should |you will )?(?:expect|look out for|watch for|keep an eye out for)\s+(.+?)\s+from\s+(?:me|us)\b\s*(.*)$/i;
// "Look out for the photos shortly", "expect a call from the adjuster on Thursday": what the speaker's
// side will send or do
const LOOK_OUT = /^(?:you can |you should )?(?:look out for|watch for|keep an eye out for|watch out for)\s+(.+)$/i;
const EXPECT_CONTACT = /^(?:you can |you should |you will )?expect(?:ed)?\s+(?:a\s+|an\s+)?(call|phone call|ring|text|text message|message|e-?mail)\s+from\s+(.+?)((?:\s+(?:on|by|at|in|within|tomorrow|today|tonight|this|next|before|after|around|to|about)\b.*)?)$/i;
// "The tech will call about half an hour before", "the driver will text you": someone on the
// speaker's side who will get in touch is the speaker's side's promise
const AGENT_WILL_CONTACT = /^(?:the|our|my|a|an)\s+(?:[a-z-]+\s+){0,2}?(?:will|is going to|shall)\s+((?:call|ring|phone|text|email|e-mail|message|contact|send)\b.*)$|^(?:someone|somebody|he|she)\s+(?:will|is going to)\s+((?:call|ring|phone|text|email|e-mail|message|contact)\b.*)$/i;
// A condition that is no event but an open offer ("if you need anything else, call us", "if you have
// any questions, give me a ring"): what follows is a courtesy, not a task.
const OPEN_OFFER = /^(?:if|should|in case)\s+(?:you\s+(?:ever\s+)?(?:need|have|want|think of|run into|get)\s+(?:anything|any(?:thing)? (?:else|more|other)|(?:any|another|more|other)\s+(?:\w+\s+)?(?:questions?|problems?|issues?|concerns?|help|trouble)|help|more (?:info|information|help))|(?:anything|something)\s+(?:else\s+)?(?:comes up|changes)|there is anything(?: else)?|(?:any )?questions? come up)\b/i;
// "Actually, make that Monday", "let's say Thursday instead": a change to something agreed before.
export const CHANGE_OF_PLAN = /^(?:(?:actually|sorry|wait|oh|no|nope|hmm|um|uh)\s*,?\s*)*(?:(?:make|change|move|push|switch|bump) (?:that|it|this)(?: (?:to|back to|up to|over to))?|let us (?:say|do|make it)|scratch that,?|(?:on )?second thought,?)\s+(.+)$|^(?:(?:actually|sorry)\s*,?\s*)?(?:\S+\s+){0,4}?(?:instead|would be better|is better|works better)\b/i;
// "The easiest thing is to email all of it to our claims team", "Best way is to call the depot
// directly": the way the speaker recommends is what the listener is asked to do
const BEST_WAY = /^(?:(?:the\s+)?(?:easiest|best|quickest|simplest|fastest|safest)\s+(?:thing|way|option|bet|route)\s+(?:is|would be|will be)\s+(?:to\s+|just\s+to\s+)?|(?:it is\s+|it would be\s+|probably\s+)?(?:best|easiest|quickest|safest)\s+to\s+)(?:just\s+)?(.+)$/i;
// "My son can help me move it on Friday", "Dave will help us carry it": the speaker does it, helped
// (a name is capitalised, and no pronoun of a thing is a helper: "That will help us plan the route")
const HELPED = /^(?:(?:[Mm]y|[Oo]ur)\s+[a-z-]+|(?!(?:It|That|This|Which|What|There|Who|Everything|Something|Anything|Nothing)\b)[A-Z][a-z]+|[Ss]omeone|[Ss]omebody|[Hh]e|[Ss]he|[Tt]hey)\s+(?:can|will|could|is going to|are going to)\s+help\s+(?:me|us)\s+(?:to\s+)?(.+)$/;
// "Where should I send the invite?", "Which email should the Teams invite go to?", "what address do
// I send the form to?": asking where to send something is saying one will send it
const WHERE_TO_SEND = /^(?:where|(?:to\s+)?(?:which|what)\s+(?:e-?mail|address|e-?mail address|number)(?:\s+address)?)\s+(?:should|shall|do|can|would you like|do you want)\s+(?:I|we|me to|us to)\s+(send|e-?mail|forward|mail|text)\s+(.+?)(?:\s+to)?\s*\?*$|^(?:where|(?:to\s+)?(?:which|what)\s+(?:e-?mail|address|e-?mail address|number)(?:\s+address)?)\s+(?:should|shall|do you want|would you like)\s+((?:the|your|my|our|a|an)\s+.+?)\s+(?:to\s+)?(?:go|be sent)(?:\s+to)?\s*\?*$/i;
// "have it", "get them": the thing had done, by its pronoun (HAVE_DONE, GOT_DONE; a determiner and its
// noun, which each reads its own way, are the other choice)
const DONE_PRONOUN = '(?:it|them|this|that|those|these)';
// (a determiner needs its noun before the participle: "get a shed delivered" is no "shed a")
const HAVE_DONE = new RegExp(String.raw`^(?:please\s+)?(?:have|get)\s+(${DONE_PRONOUN}|(?:the|your|my|our|a|an|this|that|those|these)(?:\s+(?!and\b)[\w'-]+){1,3}?)\s+((?!need\b|bed\b)[a-z]+ed|done|sent|paid|signed|made|written|taken|brought|built|set up|sorted)(?:\s+and\s+([a-z]+ed|done|sent|paid|signed|made|written))?\b(.*)$`, 'i');
const WOULD_YOU_MIND = /^would you mind\s+(\w+ing)\b\s*(.*?)[?.!]*$/i;
const PLEASE = /^(?:please|kindly)\s*,?\s+(.+)$/i;
// "Do you want me to bring my dolly?", "should I send it over?": the speaker offers to do it, and it
// is theirs to do only if the other party takes the offer ("Yes please")
const OFFER = /^(?:do you want|would you like|you want|want|do you need|would it help if)\s+(?:me|us)\s+to\s+(.+?)[?.!]*$|^(?:should|shall)\s+I\s+(.+?)[?.!]*$/i;
const NEED_YOU = /^(?:(?:I|we)\s+)?(?:need|want|would like|would love|will need)\s+you\s+to\s+(.+)$/i;
const NEED_THING = /^(?:(?:I|we)\s+)?(?:will\s+|would\s+|also\s+|just\s+|still\s+)?need\s+((?:a|an|the|your)\s+(?!(?:minute|moment|second|bit|word|favor|favour)\b).+)$/i;
const YOU_NEED = /^you\s+(?:will\s+|would\s+|might\s+|may\s+)?(?:need to|have to|must|should|want to|ought to|will want to|are going to need to|will need to)\s+(.+)$/i;
const MAKE_SURE = /^(?:make sure|be sure|remember|do not forget|don't forget|please remember)\s+(?:that\s+)?(?:to\s+|you\s+)?(.+)$/i;
const REMIND_ME = /^remind me\s+(?:to|about|that)?\s*(.+)$/i;
const DESIRE = /^(?:I|we)\s+(?:would|will)\s+(?:like|love)\s+to\s+(.+)$|^(?:I|we)\s+(?:want|wanted|hope|hoped|was hoping|were hoping)\s+to\s+(.+)$/i;
const ACCEPT = /^(?:(?:that|it|this|that time|the time|the price|the plan|the date|(?:[\w:.]+\s+){0,5}?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|tonight|morning|afternoon|evening|\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?|noon)(?:\s+[\w:.]+){0,3}?)\s+(?:works|would work|sounds good|sounds great|sounds fair|sounds perfect|is good|is fine|is perfect|suits me|is great)(?:\s+for\s+(?:me|us))?|will do|deal|agreed|sure thing|no problem|sounds good|perfect|okay|ok|great|fine|yes|yep|yup|sure|of course|absolutely|got it|that works|works for me|you got it|on it|I am on it|can do|leave it with me|consider it done|for sure|no worries|happy to|my pleasure|I can do that|I will do that|done)[.!]*$/i;
const PROPOSAL = /^(?:would|does|do|will|is|could|can)\s+(?:a|an|the|that|this|it|[\w:.]+day|next|tomorrow|[\w\s:.]{0,30}?)\b.*\b(?:work|suit|be (?:ok|okay|good|fine|possible))\b|^(?:how|what)\s+about\b|^(?:are|would)\s+you\s+(?:be\s+)?(?:free|available)\b|^shall we\b|^should we\b|^(?:can|could) we\b/i;
const NEED_TO_NOUN = /^((?:I|we)\s+(?:will\s+|would\s+|also\s+|just\s+|still\s+)?need)\s+to\s+(?!(?:think|know|hear|speak|take|get|make|be|dispose|approve|consist|rid|care|remind|inform|warn|convince|let|keep|run|get)\b)([a-z]+)\s+of\b/i;
const HEARD_YOU_REQUEST = /^you\s+((?!are\b|were\b|have\b|had\b|know\b|do\b|did\b|said\b|told\b|mean\b|see\b)[a-z]+\s+(?:me|us)\b.*)$/i;
const WILL_DO = /^(?:we\s+)?will do(?:\s+(.*?))?[.!]*$/i;
// the day or time an acceptance is for, said after it ("then" before it too: "we'll do Thursday then")
const TIME_LEAD = /^(?:then\s+)?(?:on\s+|by\s+|for\s+|at\s+|around\s+|first thing\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|tonight|this\s+(?:morning|afternoon|evening|week|weekend)|next\s+(?:week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|the\s+\d{1,2}(?:st|nd|rd|th)|\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?(?:\s|$|[.!,])|noon|first thing|later today|in the (?:morning|afternoon|evening)|that day|then$)/i;
const FUTURE_MARKER = /\b(will|should|shall|can|could|is going to|are going to|gets in|get in|arrives?|starts?|comes|is coming|are coming|is due|until|scheduled|expected)\b/i;

// Verbs people use for bare imperatives on a call ("call me back", "send it back", "bring your ID").
// An imperative outside this list is more likely a tagging or recognition error than a request.
// (the chores of a visit or a favour, "clear the cupboard under the boiler", "water the plants",
// "approve the invoices", are as common as the errands)
/** The verbs an instruction opens with, as a regex alternation (the rules below build their patterns from it). */
export const IMPERATIVE_VERB_NAMES =
  'call|ring|phone|text|message|whatsapp|email|fax|invoice|e-mail|mail|send|resend|forward|share|check|double-check|confirm|book|schedule|reschedule|cancel|remind|bring|take|pick|drop|grab|get|buy|order|pay|sign|fill|complete|submit|upload|download|return|ship|post|print|scan|review|read|look|update|arrive|come|go|meet|join|contact|reach|give|let|keep|try|ask|tell|write|note|add|remove|change|reset|restart|turn|unplug|plug|install|open|close|lock|leave|wait|hold|save|transfer|deposit|collect|deliver|fix|clean|prepare|make|set|put|use|log|register|renew|follow|visit|stop|start|bring|find|remember|ensure|double|clear|tidy|empty|move|water|feed|wash|pack|label|charge|measure|photograph|switch|unlock|attach|approve|include|notify|inform';
export const IMPERATIVE_VERBS = new RegExp(`^(?:just\\s+)?(${IMPERATIVE_VERB_NAMES})\\b`, 'i');

/** "texting" -> "text", "dropping" -> "drop" (compromise leaves some gerunds as they are). */
export function baseOfGerund(w: string): string {
  const n = nlp(w).verbs().toInfinitive().out('text');
  if (n && !/ing$/i.test(n)) return n;
  // (some gerunds are read as verbs only in a sentence: "moving" alone gives nothing, and stripping
  // "-ing" gives "mov")
  const inSentence = nlp(`we are ${w} it`).verbs().toInfinitive().out('text').split(/\s+/).find((x: string) => x.slice(0, 2).toLowerCase() === w.slice(0, 2).toLowerCase());
  if (inSentence && !/ing$/i.test(inSentence)) return inSentence;
  let b = w.replace(/ing$/i, '');
  if (/([bdgmnprt])\1$/i.test(b)) b = b.slice(0, -1);
  return b;
}

/** "posted" -> "post", "done" -> "do": the verb of a past participle (a thing had done, "get it posted"). */
function baseOfParticiple(p: string): string {
  return nlp(`I have ${p} it`).verbs().toInfinitive().out('text') || p;
}

export function verbOf(vp: string): string {
  const first = vp.trim().split(/\s+/)[0]?.toLowerCase().replace(/[^a-z-]/g, '') ?? '';
  if (!first) return '';
  if (/^(re-?send|resend)$/.test(first)) return 'resend';
  if (/^e-?mail$/.test(first)) return 'email';
  if (/^whatsapp$/.test(first)) return 'whatsapp';
  const inf = nlp(first).verbs().toInfinitive().out('text').toLowerCase();
  return inf || first;
}

function startsWithVerb(clause: string): boolean {
  const doc = nlp(clause);
  const terms = doc.json()[0]?.terms as Array<{ text: string; tags: string[] }> | undefined;
  if (!terms || !terms.length) return false;
  const t = terms[0];
  const w = t.text.toLowerCase();
  if (/^(i|you|we|he|she|it|they|there|this|that|these|those|my|your|our|the|a|an|what|where|when|why|how|who|which|is|are|was|were|am|do|does|did|have|has|had|can|could|would|will|should|shall|may|might|must|not|no|yes|so|if|once)$/.test(w)) return false;
  if (t.tags.includes('Gerund') || t.tags.includes('PastTense') || t.tags.includes('Participle')) return false;
  // A present-tense verb with an -s ("Sounds good", "Works for me") is a clipped statement.
  if (/s$/.test(w) && t.tags.includes('PresentTense') && !t.tags.includes('Infinitive')) return false;
  return t.tags.includes('Imperative') || (t.tags.includes('Verb') && t.tags.includes('Infinitive')) || /^(email|e-mail|text|whatsapp|message|call|ring|phone|send|resend|check|pick|bring|book|schedule|remind|forward|pay|sign|fill|return|drop|grab|get|make|set|submit|upload|review|read|update|arrive|come|meet|contact|reach|give|let|keep|try|ask|tell|share|ship|order|buy|confirm|fax|invoice)$/.test(w);
}

/**
 * Whether a verb phrase opens with a word that can be a verb: an action is a verb and what it acts
 * on. A recogniser's garble read as a request or a promise opens with something else ("will you pal
 * athletic than tonight" for "will do, I'll upload them tonight", "will you absolutely ..." for "will
 * do, absolutely", "can you friday morning", "let me luke that Saturday" for "let me look at").
 * The word is tried where a verb stands ("we ___ it"); an adverb may come first ("personally call").
 */
export function opensWithVerb(vp: string): boolean {
  const words = vp.trim().toLowerCase().split(/\s+/).map((w) => w.replace(/[^a-z'-]/g, ''));
  const canBeVerb = (w: string | undefined): boolean => {
    if (!w) return false;
    if (/-/.test(w) || IMPERATIVE_VERBS.test(w)) return true;
    const t = (nlp(`we ${w} it`).json()[0]?.terms as Array<{ tags: string[] }> | undefined)?.[1];
    return !!t && t.tags.includes('Verb') && !t.tags.includes('Modal') && !t.tags.includes('Auxiliary');
  };
  if (!words[0]) return true;
  if (canBeVerb(words[0]) || /^(?:be|have|do)$/.test(words[0])) return true;
  // ("personally call them", "kindly send"): an adverb in -ly before a verb that is no modal
  return /ly$/.test(words[0]) && !/^(?:can|could|will|would|shall|should|may|might|must|not)$/.test(words[1] ?? '') && canBeVerb(words[1]);
}

/** Splits a sentence into clauses at coordinations that start a new predicate. */
function splitClauses(expanded: string): Array<{ text: string; offset: number; joined: boolean }> {
  const parts: Array<{ text: string; offset: number; joined: boolean }> = [];
  let joined = false;
  const re = /((?<=[.!?])\s+(?=[A-Z])|(?<=^(?:[Ww]e\s+)?[Ww]ill do)\s+(?=(?:I|we|you|could|can|would|should|shall|will|what|how|when|where|is|are|does|did|count on it|goodbye|bye|thanks|thank you)\b)|;\s+|:\s+(?=[A-Za-z])|,?\s+(?:and|but|so)\s+(?=(?:I|we|you|he|she|they|it|then|also)\b)|,\s+(?:and|but)\s+|\s+and\s+(?=(?:then\s+)?[a-z]+\s)|,\s+(?=(?:I|we|he|she|they)\s+(?!think\b|guess\b|mean\b|know\b)[a-z])|(?<=[a-z])\s+(?=(?:I|[Ww]e)\s+(?:will|shall|am going to|are going to|am gonna|are gonna)\s+(?!be\b|need\b|have\b|see\b)[a-z]))/g;
  let last = 0;
  for (const m of expanded.matchAll(re)) {
    const cut = m.index!;
    const next = expanded.slice(cut + m[0].length);
    // "and" followed by a noun ("the rotors and the pads") is not a new clause.
    // A subject with a modal after it does start one, comma or not (recognisers write none).
    // "... when it arrives and if you see any charges call us": a condition after "and" opens a new
    // clause too (recognisers write no comma before it)
    if (/^\s*and\s/.test(m[0]) && !/,/.test(m[0]) && !startsWithVerb(next.replace(/^then\s+/, '')) && !/^(I|we|you|he|she|they)\s+(will|can|could|would|should|shall|must|need|have|am|are|do|may|might)\b/i.test(next) && !/^(if|unless|in case)\s/i.test(next) && !HEARD_YOU_REQUEST.test(next) && !/^(?:should|shall|can|could|would|will|do|did)\s+(?:I|we|you)\s+[a-z]/i.test(next)) continue;
    // ", I keep forgetting": a comma before a new subject starts a clause, unless what precedes is
    // a subordinate clause ("if you are late, could you text me")
    if (/^,\s+$/.test(m[0]) && /^\s*(if|when|once|unless|as soon as|before|after|because|since|while|in case)\b/i.test(expanded.slice(last, cut))) continue;
    // ("and if nobody's rung by then I'll give that number a call": the promise after a condition with
    // no comma is its consequence, not a clause of its own)
    if (/^\s+$/.test(m[0]) && /^\s*(?:(?:and|but|so|then)\s+)?(if|unless|in case)\b/i.test(expanded.slice(last, cut)) && !/[,;]/.test(expanded.slice(last, cut))) continue;
    parts.push({ text: expanded.slice(last, cut), offset: last, joined });
    // a bare "and <verb>" continues the predicate of the clause before it, subject included
    joined = /^\s+and\s+$/.test(m[0]);
    last = cut + m[0].length;
  }
  parts.push({ text: expanded.slice(last), offset: last, joined });
  return parts.filter((p) => p.text.trim().length > 0).flatMap(splitSo).flatMap(splitList);
}

// "There's no buzzer, so text me when you're outside": an imperative after ", so" is a request of its
// own, with the reason for it before (not a subject the request inherits)
const SO_IMPERATIVE = new RegExp(`,\\s+so\\s+(?=(?:just\\s+)?(?:${IMPERATIVE_VERB_NAMES})\\s+(?:me|us|the|a|an|my|your|our|it|them|him|her|this|that|these|those)\\b)`, 'gi');

function splitSo(part: { text: string; offset: number; joined: boolean }): Array<{ text: string; offset: number; joined: boolean; fresh?: boolean }> {
  const m = [...part.text.matchAll(SO_IMPERATIVE)][0];
  // (what precedes is a statement with a verb of its own, not a condition or a time clause)
  if (!m || m.index! < 8 || /^\s*(?:(?:and|but|oh|then|also)\s+)*(?:if|when|once|unless|as soon as|before|after|because|since|while|in case|whenever)\b/i.test(part.text)) return [part];
  const rest = m.index! + m[0].length;
  return [{ text: part.text.slice(0, m.index!), offset: part.offset, joined: part.joined }, { text: part.text.slice(rest), offset: part.offset + rest, joined: false, fresh: true }];
}

// "I'll approve the invoices by Friday, send the forecast to finance by the 10th, and attend the
// review": a list of verb phrases after one subject is as many tasks, each with that subject (a
// comma, then a verb people ask or promise with, then its object).
const LISTED_VERB = new RegExp(`,\\s+(?=(${IMPERATIVE_VERB_NAMES})\\s+(?:the|a|an|my|your|our|his|her|their|it|them|him|her|me|us|this|that|these|those)\\b)`, 'gi');

function splitList(part: { text: string; offset: number; joined: boolean }): Array<{ text: string; offset: number; joined: boolean }> {
  const out: Array<{ text: string; offset: number; joined: boolean }> = [];
  let last = 0;
  for (const m of part.text.matchAll(LISTED_VERB)) {
    const before = part.text.slice(last, m.index!);
    // (the clause before needs a predicate of its own: "Okay, send it over" is one request)
    // (nor is a condition or a time clause before the comma one: "if the printer is late, text me")
    if (before.trim().split(/\s+/).length < 4 || /^\s*(?:(?:and|but|so|oh|then|also)\s+)*(?:if|when|once|unless|as soon as|before|after|because|since|while|in case|whenever)\b/i.test(part.text)) continue;
    out.push({ text: before, offset: part.offset + last, joined: out.length ? true : part.joined });
    last = m.index! + m[0].length;
  }
  if (!out.length) return [part];
  out.push({ text: part.text.slice(last), offset: part.offset + last, joined: true });
  return out;
}

// "I'll scan everything tonight and get it sent off", "I'll have them posted tomorrow": getting a thing
// handed over is handing it over (the owner's errand, whoever carries it)
// (HAVE_DONE reads any participle in -ed and a few others; this one only those of handing a thing over)
const GOT_DONE = new RegExp(String.raw`^(?:have|get)\s+(${DONE_PRONOUN}|(?:the|a|an|your|my|our|his|her|their)\s+[\w'-]+(?:\s+[\w'-]+)?)\s+(sent|posted|mailed|e-?mailed|faxed|uploaded|submitted|delivered|returned|forwarded|dropped|printed|scanned|signed|paid|booked|filed|couriered|shipped)\b`, 'i');

/** "get that over to you" is a sending: read it as "send that to you". */
function sendFor(s: string): string {
  const got = s.match(GOT_DONE);
  if (got) s = `${baseOfParticiple(got[2])} ${got[1]}${s.slice(got[0].length)}`;
  return s.replace(/^get\s+((?:it|that|this|them|those|these|(?:the|a|an|your|my|our)\s+[\w' -]+?))\s+(?:over\s+)?(?:to|across to|out to)\s+(you|him|her|them|us)\b/i, 'send $1 to $2');
}

// ("clear the cupboard before I come, if you can": a courtesy too, the request holds)
const POLITE_IF = /,?\s+if (?:you can|you could|possible|at all possible|you get (?:a|the) chance|you have (?:a |the )?(?:time|chance|minute|moment|sec|second))\b[^,]*|,?\s+if (?:that is|it is|you are|this is|that|it|this|the (?:slot|time|day))\s+(?:still\s+)?(?:ok|okay|fine|alright|all right|good|open|free|available|convenient|works?|suits?|helps?)\b[^,]*|,?\s+if (?:you|that) (?:like|want|prefer|do not mind)\b[^,]*|,?\s+if (?:that|this|it) (?:slot|time) is (?:still )?(?:open|free|available)\b[^,]*/gi;

function stripCondition(text: string): { text: string; conditional: boolean; whenClause: boolean } {
  let t = text.trim();
  let conditional = false;
  let whenClause = false;
  // ("And before then, if you get a chance, could you have a look through her reading record?": a
  // time clause before the condition does not hide the condition, nor the request after it)
  const timeFirst = t.match(/^(?:once|when|after|as soon as|before)\b[^,]*,\s*((?:if|unless|in case)\b[^,]*,\s*.+)$/i);
  if (timeFirst) {
    whenClause = true;
    t = timeFirst[1];
  }
  const lead = t.match(/^(if|unless|in case|should)\b[^,]*,\s*(.+)$/i);
  // without the comma a recogniser never writes, the request after a condition starts at a
  // contact verb with its object ("if you see any charges you do not recognise call us at ...") or
  // at the speaker's own commitment ("if it is fine I will send it")
  // (the contact verb after a subject or a modal is that subject's, not an imperative: "if the oak
  // ever starts leaning I'd ring him" is what the speaker would do, no request to the listener)
  const bare = lead ? null : t.match(/^(?:if|unless|in case)\s.+?\s((?<!\b(?:I|we|you|he|she|they|would|will|could|might|should|may|must|can|shall|to|not)\s)(?:please\s+)?(?:call|ring|phone|text|email|e-mail|message|contact)\s+(?:us|me|him|her|them)\b.*|(?:I|we)\s+(?:will|shall|can)\s.*)$/i);
  if (lead) {
    // ("if you can, ...", "if possible, ...": a courtesy, not a condition)
    conditional = !/^if (?:you can|you could|possible|at all possible|you get (?:a|the) chance|you have (?:a |the )?(?:time|chance|minute|moment|sec|second))\s*,/i.test(t);
    t = lead[2];
  } else if (bare) {
    conditional = true;
    t = bare[1];
  }
  const once = t.match(/^(once|when|after|as soon as|before)\b[^,]*,\s*(.+)$/i);
  if (once) {
    whenClause = true;
    t = once[2];
  }
  // "I'll swing by Saturday morning, if you're open", "around 8:30, if that slot is open": a
  // courtesy, not a condition the plan hangs on
  if (/\b(if|unless|in case)\b/i.test(t.replace(POLITE_IF, ''))) conditional = true;
  if (/\b(when|once|as soon as|after)\s+(?:the|it|you|he|she|they|we|I|your|my|our)\b/i.test(t)) whenClause = true;
  return { text: t, conditional, whenClause };
}

function clean(s: string): string {
  return sendFor(s)
    .replace(/^(?:also|just|then|definitely|probably|certainly|absolutely|totally|happily|gladly|easily|surely|quickly|still|really|actually|first)\s+/i, '').replace(/\s+/g, ' ').replace(/^[,;:\s]+|[\s,;:]+$/g, '').replace(/[.!?]+$/, '')
    // (a connective left at the end when the next clause was cut off after it: "set a reminder for
    // Friday night, otherwise" - "I'll forget")
    .replace(TRAILING_CONNECTIVE, '').trim();
}

const TRAILING_CONNECTIVE = /(?:[,;]?\s+(?:otherwise|or else|or|and|and then|but|because|cause|unless|although))+\s*$/i;
const SEQUENCE_LEAD = /^(?:in the meantime|meanwhile|for now|until then|till then|before then|before that|after that|afterwards)\s*,\s*(.+)$/i;
const SLOT_VP = /^(?:do|make it|make)\s+(.+)$/i;
const OWN_DETAILS = /^(?:give|read|spell)\s+(?:you|him|her|them)\s+(?:my|our|his|her|their)\s+(?:(?:new|current|personal|work|other|direct|home)\s+)?(?:e-?mail(?: address)?|number|phone number|cell(?: number)?|mobile(?: number)?|address|details|contact details|contact info)\b/i;
// (the close kin, and the rest of the family and friends one brings along)
const BRING_PEOPLE = new RegExp(`^bring\\s+(?:(?:my|our|your|the|his|her|their)\\s+)?(?:${anyOf(KIN, ['fianc[eé]e?', 'kids', 'kid', 'children', 'child', 'parents', 'friends?', 'family', 'grandparents', 'grandma', 'grandpa'])})\\b|^bring\\s+(?:him|her|them)\\s+(?:along|with (?:you|me))\\b`, 'i');
// "can you give me his number in case he's late?": details asked for there and then, answered on the call
const ASK_DETAILS = /^(?:give|tell|read)\s+(?:me|us)\s+(?:his|her|their|your|the)\s+(?:(?:new|current|personal|work|other|direct|home|best|mobile|cell|last|first|full|family|middle|maiden)\s+)?(?:e-?mail(?: address)?|number|phone number|cell(?: number)?|mobile(?: number)?|address|details|contact details|contact info|name)\b/i;
const NO_ERRAND = new RegExp(
  [
    String.raw`^call (?:it|that)\s+(?:a day|a night|quits|even|evens|square|\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred|a grand)\b)`,
    String.raw`^tell (?:me|us) (?:that\s+)?(?:this|that|it|you|he|she|they|we|there)\s+(?:is|are|was|were|have|has|had|will|did|do|does|can|could|got)\b`,
    String.raw`^(?:put|add|make|pop|stick|write|jot|leave)\s+(?:a\s+(?:quick\s+)?note\s+(?:of\s+(?:that|it|this)\s+)?(?:on|in|to|into|against)\s+(?:the|your|my|our|his|her|their)\s+(?:notes|file|account|record|records|system|booking|job sheet|ticket|case)|(?:that|it|this)\s+(?:down\s+)?(?:on|in|into)\s+(?:the|your|my|our)\s+(?:notes|file|records?|system|job sheet))\b`,
    String.raw`^keep an eye (?:out\s+)?(?:on|in)\s+(?:your|the|my)\s+(?:junk|spam|inbox|e-?mails?|mail|post|phone|messages|texts)\b`,
    // a promise about the call itself, how long the speaker will talk ("I'll be quick", "we'll keep it short")
    String.raw`^(?:be|keep (?:it|this|things))\s+(?:really\s+|very\s+|super\s+)?(?:quick|fast|brief|short)\b`,
  ].join('|'),
  'i',
);
const WITHDRAWN_END = /\b(?:never ?mind|forget (?:it|that|about it)|scratch that)[.!?]*$/i;
// the speaker's own ride somewhere ("I'll grab an Uber", "we'll get a cab", "I'll take the bus"):
// how they get there, no errand of the call
const OWN_RIDE = /^(?:grab|get|take|catch|call|hail|order|book)\s+(?:an?\s+|the\s+)?(?:uber|lyft|taxi|cab|bus|train|tram|subway|ride)\b(?!\s+(?:for|to collect|to pick up)\s+(?:you|us|him|her|them|mum|mom|dad|my|your|our|his|their)\b)(?!\s+(?:\w+\s+){0,3}?(?:for|to)\s+(?:you|your)\b)/i;
// ("don't forget to bring your passport" asks for something to be done)
// ("leave the dryer off", "keep the dog away from it", "avoid the stairs": the same caution, said
// without its "don't")
const CAUTION = /^(?:(?:do not|never)\s+(?!forget\b|fail\b|miss\b)[a-z]|(?:leave|keep)\s+(?:(?:the|your|that|this|it|them)\s+)?(?:\w+\s+){0,2}?(?:off|unplugged|switched off|turned off|away from)\b|avoid\s|stay (?:off|away from)\b)/i;
const CAUTION_SPAN = /\b(?:until|till|before|after|while|during|tonight|today|tomorrow|overnight|this (?:morning|afternoon|evening|week|weekend)|for (?:a|an|the|\d+|one|two|three|four|five|six|seven|ten|twenty|forty-eight|twenty-four)\s+(?:\w+\s+)?(?:minutes?|hours?|days?|weeks?|months?))\b/i;
const TIME_WORD = /^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekend|tomorrow|today|tonight|morning|afternoon|evening|noon|midday|\d{1,2}(?::\d{2})?|\d{1,2}(?:st|nd|rd|th)|january|february|march|april|june|july|august|september|october|november|december|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirty|fifteen|forty-five)$/;
const TIME_FILLER = /^(?:on|at|around|about|by|this|next|the|in|of|or|either|maybe|then|instead|early|late|first|thing|half|quarter|past|o'clock|oclock|a\.?m\.?|p\.?m\.?|am|pm|sometime|any|time)$/;

/** "Thursday, October 1st, at 2 p.m.", "two", "Friday morning instead": nothing but a day or a time. */
function isTimeOnly(s: string): boolean {
  // ("2 p m": the letters as a recogniser writes them, apart)
  const words = s.toLowerCase().replace(/\b([ap])\.?\s?m\b\.?/g, '$1m').replace(/[,?!]+|\.(?=\s|$)/g, ' ').split(/\s+/).filter(Boolean);
  return words.length > 0 && words.some((w) => TIME_WORD.test(w)) && words.every((w) => TIME_WORD.test(w) || TIME_FILLER.test(w));
}

/** Reads one clause (markers and conditions removed) into a speech act. */
function classify(raw: string, unit: Unit, inherited: string | null): Omit<Clause, 'offset'> {
  let unmarked = raw.trim().replace(MARKER, '').replace(HEARD_MARKER, '').replace(HEARD_ANSWER_WORD, '').trim();
  // ("In the meantime, turn the valve off": a sequence adverb before an imperative does not hide it;
  // one to keep doing, "until then, keep using the old pass", is how things stand, no errand)
  const sequenced = unmarked.match(SEQUENCE_LEAD);
  if (sequenced && startsWithVerb(sequenced[1]) && !/^keep\b/i.test(sequenced[1])) unmarked = sequenced[1];
  // (and the same said time last: "keep the cone on until then")
  if (/^keep\b/i.test(unmarked) && /\b(?:until|till) then\s*[.!]?$/i.test(unmarked)) return { text: unmarked, conditional: false, whenClause: false, kind: 'other', vp: clean(unmarked), verb: 'keep', negated: false };
  const selfNote = unmarked.match(NOTE_TO_SELF);
  if (selfNote) {
    const v = clean(`set a reminder to ${selfNote[1]}`);
    return { text: unmarked, conditional: false, whenClause: false, kind: 'commit', vp: v, verb: 'set', negated: false };
  }
  if (SELF_TO_YOU.test(unmarked) && !/\?\s*$/.test(unmarked) && !unit.past) {
    const v = clean(unmarked);
    return { text: unmarked, conditional: false, whenClause: false, kind: 'commit', vp: v, verb: verbOf(v), negated: false };
  }
  // ("just give us a shout when you want to book it in": an open invitation, whenever the listener
  // likes, is no errand either)
  // (a promise kept whenever the listener likes is still a promise: "I will send it over whenever you like")
  if (OPEN_OFFER.test(unmarked) || (/\bwhen(?:ever)?\s+you\s+(?:want|like|wish|fancy|are ready|feel like)\b/i.test(unmarked) && !/^(?:I|we)\s/i.test(unmarked))) {
    const v = clean(unmarked);
    return { text: unmarked, conditional: true, whenClause: false, kind: 'other', vp: v, verb: verbOf(v), negated: false };
  }
  // ("And before I come, if you could shift the furniture out from under it, it saves a lot of time":
  // the time clause before an indirect request does not hide it)
  const timed = unmarked.match(/^(?:once|when|after|as soon as|before)\b[^,]*,\s*(if\s+you\s+.+)$/i);
  for (const [indirect, whenClause] of [[unmarked.match(INDIRECT_REQUEST), false], [timed ? timed[1].match(INDIRECT_REQUEST) : null, true]] as const) {
    // ("if you could have a look at their website": a look, a read or a word had is something done)
    if (!indirect || /^(not|be\b|have\b(?!\s+(?:a|another)\s+(?:quick\s+)?(?:look|read|think|go|chat|word|check|listen|try)\b))/i.test(indirect[1])) continue;
    const v = clean(indirect[1]);
    if (!INFO_REQUEST.test(v)) return { text: unmarked, conditional: false, whenClause, kind: 'request', vp: v, verb: verbOf(v), negated: false };
  }
  const cond = stripCondition(unmarked);
  let text = cond.text.replace(MARKER, '').replace(HEARD_MARKER, '').replace(HEARD_ANSWER_WORD, '').trim();
  text = text.replace(VOCATIVE_END, (m) => (/[?]/.test(m) ? '?' : '')).trim();
  // ("I guess I can do that", "I suppose I could take a crack at it Sunday": a hedged yes is still a yes,
  // the hedge is no part of what is promised)
  text = text.replace(HEDGED_PROMISE, '');
  const base = { text, conditional: cond.conditional, whenClause: cond.whenClause };
  const lower = text.toLowerCase();
  const isQ = unit.isQuestion && /\?\s*$/.test(unit.text);
  const mk = (kind: ClauseKind, vp: string, negated = false): Omit<Clause, 'offset'> => {
    const v = clean(vp);
    // (no errand on purpose: the speech-act model leaves such a clause alone, Clause.ruledOut)
    const ruledOut = (): Omit<Clause, 'offset'> => ({ ...base, kind: 'other', vp: v, verb: verbOf(v), negated, ruledOut: true });
    // (an action said with no verb is a garble, not an action; "please" asks whatever the words after
    // it were heard as, "please in melee to parking permits ..." for "please email it to ...")
    const acts = kind === 'request' || kind === 'commit' || kind === 'soft' || kind === 'joint';
    // "Could you do Thursday at two?", "I can do Sunday at eleven": a time offered or taken for
    // something arranged, not a task to "do Thursday"
    if (acts && SLOT_VP.test(v) && isTimeOnly(v.replace(SLOT_VP, '$1'))) return { ...base, kind: isQ ? 'proposal' : 'accept', vp: v, verb: verbOf(v), negated };
    // "let me give you my email": one's own details, said there and then, are no errand (nor the
    // other party's asked for: "can you give me his number?")
    // "I'll bring my fiancee", "bring the kids if you can": people who come along, no errand
    if (acts && (OWN_DETAILS.test(v) || (ASK_DETAILS.test(v) && !BY_CHANNEL.test(v)) || BRING_PEOPLE.test(v))) return ruledOut();
    // verbs of asking or promising that do nothing after the call: an idiom ("call it ten", "call it a
    // day"), a hope said as an order ("please tell me this is good news"), a note the speaker makes
    // there and then ("I'll put that in the notes"), a watch for what the other side will send
    // ("keep an eye on your junk folder for the invite")
    if (acts && NO_ERRAND.test(v)) return ruledOut();
    // "could you use my work email instead, it's ...": where to reach someone, asked for, is the
    // address of something already arranged (an invite, an e-mail), not an errand of its own
    if (acts && HOW_TO_REACH.test(v)) return ruledOut();
    if ((kind === 'commit' || kind === 'soft') && OWN_RIDE.test(v)) return ruledOut();
    // "please don't try to lift it yourself", "never lean it on the gutter": a caution, said as a
    // negative imperative with no time it holds for, asks for nothing to be done (one kept for a
    // while, "don't run the dishwasher until the part arrives", "no food after ten", stays one)
    if (kind === 'request' && CAUTION.test(v) && !CAUTION_SPAN.test(v) && !unit.dates.some((d) => v.toLowerCase().includes(d.text.toLowerCase()))) return { ...base, kind, vp: v, verb: verbOf(v), negated: true };
    return { ...base, kind: acts && !PLEASE.test(text) && !opensWithVerb(v) ? 'other' : kind, vp: v, verb: verbOf(v), negated };
  };

  if (!text) return mk('other', '');
  /** The whole sentence is no errand, on purpose (see Clause.ruledOut). */
  const noErrand = (): Omit<Clause, 'offset'> => ({ ...mk('other', text), ruledOut: true });
  let m0: RegExpMatchArray | null;
  // (read as no errand on purpose, so the speech-act model leaves them alone: "use my cell it's four
  // one two ..." as a recogniser writes it was made a request by the model)
  if (PLEASANTRY.test(text) || WELL_WISHES.test(text) || HOW_TO_REACH.test(text) || WAIT_IT_OUT.test(text)) return noErrand();
  // "can you do earlier, I have to get to work, actually never mind": a request taken back in the
  // same breath (unpunctuated, as a recogniser writes it) asks nothing
  if (WITHDRAWN_END.test(text)) return noErrand();
  // "Okay, go ahead with the repair": consent to what the other party offered, not a new task
  // ("please go ahead whenever you're ready": leave to speak, not an errand; "please go ahead and book
  // it" asks for the booking)
  if (/^go ahead\b/i.test(text) || /^please\s+go ahead\b(?!\s+(?:and|with)\b)/i.test(text)) return mk('accept', text);

  // "Will do", as a recogniser writes it at the start of a turn: "we'll do" ("We'll do tomorrow
  // afternoon after my client meetings", "We'll do. I'll send it tonight"); and "We'll do Thursday
  // then": taking what was asked or offered, with the day it is for kept (extractActions), not a
  // promise to "do Thursday"
  if ((m0 = text.match(WILL_DO)) && (!m0[1] || TIME_LEAD.test(m0[1]))) return mk('accept', text);

  // Bare verb phrase after "and": it shares the subject and modal of the clause before it.
  if (inherited && startsWithVerb(text) && !PLEASE.test(text)) return mk(inherited as ClauseKind, text);

  let m: RegExpMatchArray | null;
  // "Just have the old one unplugged and emptied before we get there", "get the form signed by
  // Friday": having a thing done is doing it (the owner's errand, whoever carries it)
  if ((m = text.match(HAVE_DONE)) && !isQ) {
    return mk('request', `${baseOfParticiple(m[2])} ${m[3] ? `and ${baseOfParticiple(m[3])} ` : ''}${m[1]}${m[4]}`);
  }
  if ((m = text.match(WHERE_TO_SEND))) return mk('commit', m[1] ? `${m[1]} ${m[2]}` : `send ${m[3]}`);
  if ((m = text.match(BEST_WAY)) && !isQ && startsWithVerb(m[1])) return mk('request', m[1]);
  if ((m = text.match(HELPED)) && !isQ && !unit.past && startsWithVerb(m[1])) return mk('commit', m[1]);
  if ((m = text.match(NEED_YOU))) return mk('request', m[1]);
  if (isQ && (m = text.match(OFFER)) && startsWithVerb(m[1] ?? m[2] ?? '') && !INFO_REQUEST.test(m[1] ?? m[2] ?? '')) return { ...mk('commit', m[1] ?? m[2] ?? ''), needsAnswer: true };
  // "we need to deposit of three hundred dollars": a word followed by "of" is a noun, so the "to"
  // before it is the recogniser's article ("we need a deposit of ..."), not an infinitive
  const needNoun = text.replace(NEED_TO_NOUN, (_all, head: string, noun: string) => `${head} a ${noun} of`);
  // "We need a deposit of 300 dollars by Friday": something the speaker needs from the other party
  // by a deadline is a request to provide it (pay it, when it is money)
  if ((m = needNoun.match(NEED_THING)) && unit.dates.some((d) => d.date !== null && text.toLowerCase().includes(d.text.toLowerCase()))) {
    const thing = m[1];
    return mk('request', `${/\b(deposit|payment|fee|balance|dollars|amount|check|cheque|rent)\b/i.test(thing) ? 'pay' : 'send'} ${thing}`);
  }
  if ((m = text.match(DESIRE))) return mk('desire', m[1] ?? m[2] ?? '');
  // "remind me to buy a card": a self-reminder (the spec's `reminder`) of the speaker, who is the
  // one to be reminded, whoever else offers to help
  if ((m = text.match(REMIND_ME))) return mk('commit', `set a reminder to ${m[1]}`);
  if ((m = text.match(WOULD_YOU_MIND)) || (m = text.match(MIND_DOING))) return mk('request', `${baseOfGerund(m[1])} ${m[2]}`);
  if ((m = text.match(EXPECT_CONTACT))) {
    const how = m[1].toLowerCase();
    const verb = /call|ring/.test(how) ? 'call' : /text|message/.test(how) ? 'text' : 'email';
    return mk('commit', `${verb} you${m[3] ?? ''}`);
  }
  if ((m = text.match(EXPECT_FROM))) return mk('commit', `send ${m[1]} ${m[2]}`);
  if ((m = text.match(LOOK_OUT)) && !isQ) return mk('commit', `send ${m[1]}`);
  if ((m = text.match(AGENT_WILL_CONTACT)) && !isQ && !unit.past) return mk('commit', m[1] ?? m[2]);
  if ((m = text.match(YOU_WILL_HEAR))) return mk('commit', `get back to you ${m[1]}`);
  if ((m = text.match(YOU_WILL_HAVE)) && !isQ && !/^(a|an|the)?\s*(great|good|nice|lovely|fun|chance|choice|option|time)\b/i.test(m[1])) return mk('commit', `send ${m[1]}${m[2] ?? ''}`);
  if ((m = text.match(BARE_COMMIT)) && !isQ && startsWithVerb(m[1])) return mk('commit', m[1]);
  if ((m = text.match(BARE_PROGRESSIVE)) && !isQ && !unit.past && IMPERATIVE_VERBS.test(baseOfGerund(m[1]))) return mk('commit', `${baseOfGerund(m[1])} ${m[2]}`);
  if ((m = text.match(REQUEST_Q))) {
    if (INFO_REQUEST.test(m[1]) && !BY_CHANNEL.test(m[1])) return mk('other', m[1]);
    return mk('request', m[1]);
  }
  if ((m = text.match(PLEASE))) {
    if (PLEASANTRY.test(m[1]) || (INFO_REQUEST.test(m[1]) && !BY_CHANNEL.test(m[1]))) return mk('other', m[1]);
    // "yes please, the meter is by that gate": "please" as a reply, not a request, when no verb follows
    // ("please the on site": a determiner before a preposition is a misheard "be", a request still)
    if (/^(?:(?:the|a|an|this|that|my|your|our)\s+(?!on|in|at|to|for|by|with|from|up|out|here|there|ready)\w|(?:it|he|she|they|we|I)\s)/i.test(m[1])) return mk('other', m[1]);
    return mk('request', m[1]);
  }
  if ((m = text.match(MAKE_SURE))) return mk('request', m[1]);
  // ("... it goes back to the depot and you'd have to collect it yourself": what would follow, not a request)
  if ((m = text.match(YOU_NEED))) return /^you\s+(?:would|might|may)\s+(?:need to|have to)\b/i.test(text) ? { ...mk('request', m[1]), conditional: true } : mk('request', m[1]);
  // ("let's see, your email?", "let's see here": thinking aloud while looking something up, as "let me
  // see" is, not a plan of the two)
  if (/^let us see\b(?!\s+(?:if|whether|about|how)\b)/i.test(text)) return noErrand();
  // ("After I come back, we can see", "we'll see then": a decision put off, no promise of anything)
  if (/^(?:I|we)\s+(?:will|can|could|shall|might|may)\s+see(?:\s+(?:then|later|after(?:wards)?|about (?:it|that)|how it goes|what happens))?\s*[.!]*$/i.test(text)) return noErrand();
  if ((m = text.match(LET_US))) return mk('joint', m[1]);
  if ((m = text.match(LET_ME))) return mk('commit', m[1]);
  if (/^let me\b/i.test(text)) return mk('other', text);
  if (/^let me know\b/i.test(text)) return mk('request', text.replace(/^let me/i, 'let them'));
  if ((m = text.match(HAPPY_TO))) return { ...mk('commit', m[1]), modal: 'happy to' };
  if ((m = text.match(SUBJECT_MODAL))) {
    const modal = m[2].toLowerCase();
    let vp = m[3];
    const negated = /^not\b/i.test(vp);
    if (negated) vp = vp.replace(/^not\s+/i, '');
    // ("I'll send the Teams link to the email we've got on file, is that still the Hotmail one?": a
    // plan said outright, with a question about its details tagged on, is still the plan)
    const tagged = isQ && /^(?:will|shall|am going to|are going to|am gonna|are gonna)$/.test(modal) && TAG_QUESTION.test(vp);
    if (isQ && !tagged) return mk('other', vp);
    if (tagged) vp = vp.replace(TAG_QUESTION, '');
    // "we'll need about thirty minutes" states a requirement, not a plan
    // ("I'll also need the title deed before the call, if you can find it": a requirement still, put
    // to the listener, who takes it on in their own words)
    if (/^(?:also\s+|just\s+|still\s+|really\s+|probably\s+|definitely\s+|then\s+)?(need|be needing|want|like|love|see about)\b/i.test(vp) && !/^(?:\w+\s+)?need to\b/i.test(vp)) return mk('other', vp, negated);
    if (negated) return mk('other', vp, true);
    // "I can refund it to your bank, or leave it on for the winter": options put to the listener,
    // whose choice says what is done, not a promise of either
    // (one with a day is the plan, the day taken or not: "we can redeliver Friday, or hold it at the depot")
    const alt = /^(?:can|could)$/.test(modal) && unit.dates.length === 0 ? vp.match(/,?\s+or\s+(?:(?:I|we)\s+(?:can|could)\s+)?(?:just\s+)?([a-z].*)$/i) : null;
    if (alt && startsWithVerb(vp) && IMPERATIVE_VERBS.test(alt[1]) && !/^(?:not|so)\b/i.test(alt[1])) return { ...mk('other', vp), modal };
    // (the other option a question to the listener: "I can try a neighbour, or if there's somewhere
    // safe I can leave it ...")
    if (/^(?:can|could)$/.test(modal) && unit.dates.length === 0 && startsWithVerb(vp) && /,?\s+or\s+(?:if|whether)\s+(?:there|you)\b/i.test(vp)) return { ...mk('other', vp), modal };
    const soft = /^(could|may|might|should)$/.test(modal) || (modal === 'can' && unit.dates.length === 0);
    return { ...mk(soft ? 'soft' : 'commit', vp), modal };
  }
  if ((m = text.match(PROGRESSIVE))) {
    const rest = `${m[3]} ${m[4]}`.trim();
    if (PURPOSE_OF_CALL.test(rest) || isQ) return mk('other', rest);
    // "I'm shipping you a replacement": the present progressive of a plan
    const inf = baseOfGerund(m[3]);
    if (/^(be|have|feel|think|hope|look|wonder|try|say|tell|ask|do|go)$/.test(inf.toLowerCase())) return mk('other', rest);
    // "I'm calling ...": on a call, the present progressive of calling describes this very call
    // (its purpose, however the rest was heard), never a call still to be made ("I'll call")
    if (/^(call|ring|phone)$/.test(inf.toLowerCase())) return mk('other', rest);
    // "we're driving up to my in-laws that whole weekend", "I'm flying out to Denver on the 18th": a
    // trip of one's own says where the speaker will be (as "I'll be away" does), no errand; one made
    // to do something stays ("I'm driving over tomorrow to drop the keys off")
    if (/^(drive|fly|travel|head)$/.test(inf.toLowerCase()) && /^(?:(?:up|down|over|out|back|away|home|across)\s+)?(?:to|for)\s+(?!\w+\s+(?:it|them|the|a|an|your|my)\b)/i.test(m[4]) && !/\bto\s+(?:pick|drop|get|collect|bring|deliver|fetch|grab|buy|sign|pay|fix|check|look)\b|\band\s+(?:pick|drop|get|collect|bring|deliver|fetch|grab|buy|sign|pay)\b/i.test(m[4])) return mk('other', rest);
    return mk('commit', `${inf} ${m[4]}`);
  }
  // "... and you pick me up at the airport": "can you" heard as "and you" (the "and" went to the
  // clause split): "you" + a bare verb that acts on the speaker ("me", "us"), in a sentence not about
  // the past, asks for it; the grouping keeps it only if the addressee takes it on
  if ((m = text.match(HEARD_YOU_REQUEST)) && !isQ && !unit.past && IMPERATIVE_VERBS.test(m[1]) && !/s$/i.test(m[1].split(/\s+/)[0])) {
    return { ...mk('request', m[1]), needsAnswer: true };
  }
  if (isQ && PROPOSAL.test(text) && unit.dates.length > 0) return mk('proposal', text);
  if (isQ && PROPOSAL.test(text)) return mk('proposal', text);
  if (ACCEPT.test(text) && text.split(/\s+/).length <= 12) return mk('accept', text);
  if (isQ) return mk('other', text);
  // A bare imperative is weak evidence; on a segment the recogniser was unsure of it is more
  // often a misheard word ("Share I have your file up") than a request.
  // (the very first words of a call, with no object, are a greeting, "Tri-County Power, billing and
  // service", whatever verb a recogniser makes of them)
  if (startsWithVerb(text) && IMPERATIVE_VERBS.test(text) && text.split(/\s+/).length >= 2 && unit.confidence !== 'LOW' && (unit.idx > 0 || /\b(?:the|a|an|your|my|our|me|us|it|them|this|that|these|those|him|her)\b/i.test(text)) && !/^\S+\s+(I|he|she|we|they|it's|it is|is|are|was|were)\b/i.test(text)) {
    if (INFO_REQUEST.test(text)) return mk('other', text);
    return mk('request', text);
  }
  // A third party's or the speaker's side's future event with a date: "a new card will arrive
  // within five business days", "the boiler company can't come until Wednesday morning".
  if (!unit.past && FUTURE_MARKER.test(lower) && unit.dates.some((d) => d.date !== null)) {
    return mk('future', text);
  }
  return mk('other', text);
}

// Request openers as an offline recogniser writes them: "could use email me ..." for "could you
// email me ...". Repaired for reading the speech act only; quotes keep the words as recognised.
const HEARD_REQUEST = /\b(can|could|would|will)\s+(?:use|ya|yeah)\s+(?=(?:please\s+|just\s+|also\s+)?(?:email|e-mail|send|text|call|give|bring|check|tell|forward|pick|mail|sign|pay|fax|drop|share|book|let|make|get|come|confirm|remind)\b)/gi;

// "call us back" run together by the recogniser into "cause back" (no English sentence has a verb
// "cause" followed by "back"); read as said for the speech act only, as above.
const HEARD_CALL_BACK = /\bcause back\b/gi;

// "The email them to ... by Friday" for "Please email them ...": a determiner cannot stand before a
// verb that takes an object pronoun, so the word the recogniser put there is read as "please".
const HEARD_PLEASE = new RegExp(`^(?:the|a|uh|um)\\s+(?=(?:just\\s+)?(${IMPERATIVE_VERB_NAMES})\\s+(?:me|us|it|them|him|her)\\b)`, 'i');

// The first person's auxiliaries as an offline recogniser writes them at the start of a clause, no
// apostrophe heard: "all send it tonight" / "ill call you back" for "I'll ...", "among to email you"
// / "I'm gonna" for "I'm going to"; and the negative question "can't you send it?" is a request as
// "can you" is. Repaired for reading the speech act only; quotes keep the words as recognised.
const HEARD_ILL = new RegExp(`(^|[.,;!?]\\s+|\\b(?:and|so|then|okay|sure|yes|yeah|right|fine|great|confirm|recap)\\s+)(?:all|ill|aisle|isle)\\s+(?=(${IMPERATIVE_VERB_NAMES})\\s+(?:you|it|them|that|this|the|a|an|him|her|me|us|your|my|our|back|over|up|out|by)\\b)`, 'gi');
// ("I'm a" is "I'm gonna" only before a verb: "I'm a sophomore and ..." is no plan)
const HEARD_GOING_TO = new RegExp(`(^|[.,;!?]\\s+|\\b(?:and|so|then|okay|sure|yes|yeah)\\s+)(?:(?:among|i am gonna|am gonna|im gonna)\\s+(?:to\\s+)?(?=[a-z]+\\s)|(?:i am a|i'm a)\\s+(?=(${IMPERATIVE_VERB_NAMES})\\s))`, 'gi');
const NEGATIVE_ASK = /\b(can|could|will|would) not you\b/gi;

// Hesitations inside a clause ("I'll email you the contract and, um, give the bank a ring") are no
// words of it: dropped before the split, so the clause ends and the next one starts where they would
// without them.
const FILLER = /,?\s+(?:um+|uh+|erm+|er|uhm+)\b,?(?=\s)/gi;

// "Share I'll check with your insurance", "share my son can help me": an offline recogniser hears
// an answering "sure" as "share". Asked of the other party, "share" takes what is to be shared
// ("share your screen", "share it"), never the speaker's own subject ("I", "we") or a possessive
// "my", so a sentence opening "share" + one of those opens with the answer word.
const HEARD_SURE = /^share\s+(?=(?:i|we|my|is|no|yes|thanks)\b)/i;

/**
 * Each sentence's reading, kept while its words are unchanged: the action pass asks for a sentence's
 * clauses once per clause of it (antecedents, replies), and reading them again each time made a long
 * unpunctuated turn cost the square of its length.
 */
const readings = new WeakMap<Unit, { norm: string; clauses: readonly Clause[] }>();

/** The speech acts of one sentence, in order. */
export function clausesOf(unit: Unit): Clause[] {
  const known = readings.get(unit);
  if (known && known.norm === unit.norm) return [...known.clauses];
  const clauses = readClauses(unit);
  readings.set(unit, { norm: unit.norm, clauses });
  return [...clauses];
}

// a question about a detail tagged on after a comma: ", is that still the Hotmail one?"
const TAG_QUESTION = /,\s+(?:is|are|does|do|did|was|has|would|will|should)\s+(?:that|it|this|there|the)\b[^,]*\?*\s*$/i;
// the speaker's own purpose or wish, said with "to": "I'm ringing to ...", "I was hoping to ..."
const OWN_PURPOSE = /\b(?:I|we)\s+(?:am|are|was|were)\s+(?:just\s+|only\s+)?(?:ringing|calling|phoning|writing|hoping|trying|looking|wanting|meaning)\s+(?:\w+\s+)?to\b|\b(?:I|we)\s+(?:just\s+)?(?:want|wanted|would like|would love)\s+to\b/i;

function readClauses(unit: Unit): Clause[] {
  const expanded = expand(unit.norm).replace(HEARD_SURE, 'sure, ').replace(HEARD_ILL, '$1I will ').replace(HEARD_GOING_TO, '$1I am going to ').replace(NEGATIVE_ASK, '$1 you').replace(FAVOR, 'please ').replace(HEARD_REQUEST, '$1 you ').replace(HEARD_CALL_BACK, 'call us back').replace(HEARD_PLEASE, 'please ').replace(FILLER, '');
  const out: Clause[] = [];
  let inherited: string | null = null;
  let purposeOpen = false;
  let end = 0;
  for (const part of splitClauses(expanded)) {
    // "I've blocked the card and reversed the charge": the second verb shares the first clause's
    // (non-actionable) subject, so it is not an imperative of its own
    // ("I'm ringing to get it booked in, and find out roughly what it costs": the speaker's purpose
    // goes on after ", and", the verb is the purpose's second, no imperative either)
    const purpose = purposeOpen && inherited === null && /^,\s+and\s+$/.test(expanded.slice(end, part.offset));
    purposeOpen ||= OWN_PURPOSE.test(part.text);
    end = part.offset + part.text.length;
    if ((part.joined || purpose) && inherited === null && startsWithVerb(part.text)) {
      out.push({ kind: 'other', text: part.text, vp: part.text, verb: '', conditional: false, whenClause: false, negated: false, offset: part.offset });
      continue;
    }
    // ("I'll leave a key with Mrs Patel, so grab it from her on Friday": the imperative after ", so" has
    // no subject of the promise before it to inherit)
    const c = classify(part.text, unit, 'fresh' in part && part.fresh ? null : inherited);
    out.push({ ...c, offset: part.offset });
    inherited = c.kind === 'commit' || c.kind === 'request' || c.kind === 'soft' || c.kind === 'joint' ? c.kind : null;
  }
  return out;
}
