// The bare-metal boot ROM of the Bochs runner (docs/bochs_runner.md).
//
// Bochs loads this 64 KiB image as its system BIOS (romimage), so the CPU
// starts here at the reset vector: no BIOS POST, no disk. The host has put
// the payload (job table, code, argument slots, buffers) into guest RAM at
// PAYLOAD_BASE with optramimage1. This ROM goes real mode -> protected mode
// -> long mode with identity paging, enables SSE/AVX/AVX-512 state, runs
// every block of every job, and stops in the Bochs debugger (magic
// breakpoint), which then dumps the results with writemem and quits.
//
// Position: the image is mapped at 0xF0000-0xFFFFF (and at the top of the
// 4 GiB space, where the reset vector is). Everything in this file is in one
// section and addressed either PC-relative or as ROM_BASE + (label -
// rom_start), so no linker is needed: the object's .text is the ROM.
//
// The constants below are mirrored in bochs_runner.cpp (namespace layout).

#define ROM_BASE      0xF0000
#define PML4          0x1000
#define PDPT          0x2000
#define PD            0x3000
#define PT            0x4000
#define IDT           0x5000
#define GDT_RAM       0x6000
#define TSS           0x7000
#define STACK_TOP     0x00C00000   /* 8 MiB kernel stack above a 2 MiB guard */
#define IST_TOP       0x00E00000   /* exception stack */
#define PAYLOAD_BASE  0x01000000

// Payload header fields (byte offsets from PAYLOAD_BASE).
#define H_MAGIC       0
#define H_NJOBS       8
#define H_JOBS        16   /* guest address of the job table */
#define H_STATUS      24   /* 0 loaded, 1 running, 2 done, 3 exception, 4 reset */
#define H_JOB         32   /* job being run */
#define H_BLOCK       40   /* block being run */
#define H_VECTOR      48
#define H_ERROR       56
#define H_RIP         64
#define H_CR2         72
#define H_RSP         80
#define H_XCR0        88
#define H_DONE        96   /* blocks completed, all jobs */
#define H_SIZE        104  /* payload bytes */
#define MAGIC_LO      0x534843424f545021   /* "!PTOBCHS" little-endian */

// Job record: 32 bytes.
#define J_ENTRY       0    /* guest address of the thunk */
#define J_NBLOCKS     8
#define J_SLOTS       16   /* guest address of block 0's argument slots */
#define J_STRIDE      24   /* bytes between two blocks' slots */

#define ABS(label) (ROM_BASE + (label) - rom_start)

// Every data segment register to the flat data descriptor (GDT 0x10).
.macro data_segments
        movw    $0x10, %ax
        movw    %ax, %ds
        movw    %ax, %es
        movw    %ax, %ss
        movw    %ax, %fs
        movw    %ax, %gs
.endm

        .text
rom_start:

// ---------------------------------------------------------------- 16-bit
        .code16
start16:
        cli
        cld
        movw    $0xf000, %ax
        movw    %ax, %ds
        inb     $0x92, %al              // fast A20 gate on
        orb     $2, %al
        andb    $0xfe, %al
        outb    %al, $0x92
        lgdtl   (gdtr - rom_start)
        movl    %cr0, %eax
        andl    $0x9ffffff3, %eax       // caches on (CD, NW), no EM, no TS
        orl     $0x00000023, %eax       // PE, MP, NE
        movl    %eax, %cr0
        ljmpl   $0x08, $ABS(start32)

// ---------------------------------------------------------------- 32-bit
        .code32
start32:
        data_segments
        // Bochs 2.7 gives guest RAM host memory in blocks (128 KiB), in the
        // order the guest first touches them, but optramimage reads the
        // whole file contiguously from the first block's host address. So
        // the payload is only where it belongs if its pages are touched
        // first, in ascending order: read one byte of each before anything
        // else in RAM is used.
        movl    $PAYLOAD_BASE, %esi
        cmpl    $(MAGIC_LO & 0xffffffff), H_MAGIC(%esi)
        jne     2f
        movl    H_SIZE(%esi), %ecx
        addl    %esi, %ecx              // end of the payload
1:      movb    (%esi), %al
        addl    $0x1000, %esi
        cmpl    %ecx, %esi
        jb      1b
2:
        // Clear the page tables, IDT, GDT copy and TSS (0x1000-0x7fff).
        movl    $PML4, %edi
        xorl    %eax, %eax
        movl    $(0x7000 / 4), %ecx
        rep stosl
        movl    $(PDPT | 3), PML4
        movl    $(PD | 3), PDPT
        movl    $(PT | 3), PD
        // First 2 MiB in 4 KiB pages; page 0 stays absent (null pointers fault).
        movl    $1, %ecx
1:      movl    %ecx, %eax
        shll    $12, %eax
        orl     $3, %eax
        movl    %eax, PT(, %ecx, 8)
        incl    %ecx
        cmpl    $512, %ecx
        jb      1b
        // 2 MiB pages from 4 MiB to 1 GiB; 2-4 MiB stays absent (stack guard).
        movl    $2, %ecx
2:      movl    %ecx, %eax
        shll    $21, %eax
        orl     $0x83, %eax
        movl    %eax, PD(, %ecx, 8)
        incl    %ecx
        cmpl    $512, %ecx
        jb      2b
        movl    $PML4, %eax
        movl    %eax, %cr3
        movl    %cr4, %eax
        orl     $0x40620, %eax          // PAE, OSFXSR, OSXMMEXCPT, OSXSAVE
        movl    %eax, %cr4
        movl    $0xc0000080, %ecx       // EFER.LME
        rdmsr
        orl     $0x100, %eax
        wrmsr
        movl    %cr0, %eax
        orl     $0x80000000, %eax       // PG: long mode is active
        movl    %eax, %cr0
        ljmpl   $0x18, $ABS(start64)

// ---------------------------------------------------------------- 64-bit
        .code64
start64:
        data_segments
        movq    $STACK_TOP, %rsp

        // A second pass through the reset vector (a triple fault resets
        // the CPU, not the RAM): report it instead of running again.
        movq    $PAYLOAD_BASE, %rbx
        cmpq    $0, H_STATUS(%rbx)
        je      3f
        movq    $4, H_STATUS(%rbx)
        leaq    msg_reset(%rip), %rsi
        call    puts
        jmp     finish
3:
        // The GDT again, in RAM, with a TSS for the exception stack.
        leaq    gdt(%rip), %rsi
        movq    $GDT_RAM, %rdi
        movl    $(gdt_end - gdt), %ecx
        rep movsb
        movq    $TSS, %rax              // TSS descriptor base (low 32 bits)
        movw    %ax, GDT_RAM + 0x20 + 2
        shrq    $16, %rax
        movb    %al, GDT_RAM + 0x20 + 4
        movb    %ah, GDT_RAM + 0x20 + 7
        movq    $IST_TOP, %rax
        movq    %rax, TSS + 0x24        // IST1
        movw    $104, TSS + 0x66        // no I/O permission bitmap
        lgdt    gdtr64(%rip)
        movw    $0x20, %ax
        ltr     %ax

        // IDT: vectors 0-31, each through IST1 to its stub.
        leaq    fault_stubs(%rip), %rdx
        movq    $IDT, %rdi
        xorl    %ecx, %ecx
4:      movq    %rdx, %rax
        movw    %ax, (%rdi)
        movw    $0x18, 2(%rdi)
        movw    $0x8e01, 4(%rdi)        // present, interrupt gate, IST1
        shrq    $16, %rax
        movw    %ax, 6(%rdi)
        shrq    $16, %rax
        movl    %eax, 8(%rdi)
        movl    $0, 12(%rdi)
        addq    $16, %rdx
        addq    $16, %rdi
        incl    %ecx
        cmpl    $32, %ecx
        jb      4b
        lidt    idtr(%rip)

        // XCR0: x87, SSE, AVX and the three AVX-512 states, as far as the
        // CPU model supports them.
        movl    $0xd, %eax
        xorl    %ecx, %ecx
        cpuid
        andl    $0xe7, %eax
        orl     $3, %eax
        xorl    %edx, %edx
        xorl    %ecx, %ecx
        xsetbv
        movq    $PAYLOAD_BASE, %rbx     // cpuid took rbx
        movq    %rax, H_XCR0(%rbx)
        fninit

        // The payload must be there.
        movabsq $MAGIC_LO, %rax
        cmpq    %rax, H_MAGIC(%rbx)
        je      5f
        movq    $5, H_STATUS(%rbx)
        leaq    msg_nopayload(%rip), %rsi
        call    puts
        jmp     finish
5:
        movq    $1, H_STATUS(%rbx)
        movq    $0, H_JOB(%rbx)
job_loop:
        movq    $PAYLOAD_BASE, %rbx
        movq    H_JOB(%rbx), %rax
        cmpq    H_NJOBS(%rbx), %rax
        jae     all_done
        movq    $0, H_BLOCK(%rbx)
block_loop:
        movq    $PAYLOAD_BASE, %rbx
        movq    H_JOB(%rbx), %rax
        shlq    $5, %rax
        addq    H_JOBS(%rbx), %rax      // rax = job record
        movq    H_BLOCK(%rbx), %rcx
        cmpq    J_NBLOCKS(%rax), %rcx
        jae     next_job
        movq    %rcx, %rdi
        imulq   J_STRIDE(%rax), %rdi
        addq    J_SLOTS(%rax), %rdi     // rdi = this block's slots
        movq    J_ENTRY(%rax), %rax
        // A clean state for every call: the stack, the direction flag, MXCSR.
        movq    $STACK_TOP, %rsp
        cld
        ldmxcsr mxcsr_default(%rip)
        vzeroall
        call    *%rax
        movq    $PAYLOAD_BASE, %rbx
        incq    H_DONE(%rbx)
        incq    H_BLOCK(%rbx)
        jmp     block_loop
next_job:
        incq    H_JOB(%rbx)
        jmp     job_loop
all_done:
        movq    $2, H_STATUS(%rbx)

finish:
        xchgw   %bx, %bx                // magic breakpoint: the host's debugger script
        movw    $0x8900, %dx            // takes over; should it not, shut down
        leaq    msg_shutdown(%rip), %rsi
        call    puts_dx
6:      hlt
        jmp     6b

// Exception entry: every stub leaves [rsp] = vector, [rsp+8] = error code,
// then the CPU frame (rip, cs, rflags, rsp, ss).
fault_common:
        movq    $PAYLOAD_BASE, %rbx
        movq    $3, H_STATUS(%rbx)
        movq    (%rsp), %rax
        movq    %rax, H_VECTOR(%rbx)
        movq    8(%rsp), %rax
        movq    %rax, H_ERROR(%rbx)
        movq    16(%rsp), %rax
        movq    %rax, H_RIP(%rbx)
        movq    40(%rsp), %rax
        movq    %rax, H_RSP(%rbx)
        movq    %cr2, %rax
        movq    %rax, H_CR2(%rbx)
        leaq    msg_fault(%rip), %rsi
        call    puts
        movq    H_VECTOR(%rbx), %rax
        call    puthex
        leaq    msg_rip(%rip), %rsi
        call    puts
        movq    H_RIP(%rbx), %rax
        call    puthex
        movb    $10, %al
        outb    %al, $0xe9
        jmp     finish

// puts: the NUL-terminated string at rsi to port 0xE9; puts_dx: to port dx.
puts:
        movw    $0xe9, %dx
puts_dx:
        lodsb
        testb   %al, %al
        jz      1f
        outb    %al, %dx
        jmp     puts_dx
1:      ret

// puthex: rax as 16 hex digits to port 0xE9.
puthex:
        movq    %rax, %rdx
        movl    $16, %ecx
1:      rolq    $4, %rdx
        movl    %edx, %eax
        andl    $15, %eax
        cmpb    $10, %al
        jb      2f
        addb    $('a' - 10 - '0'), %al
2:      addb    $'0', %al
        outb    %al, $0xe9
        decl    %ecx
        jnz     1b
        ret

// One 16-byte stub per vector; the CPU pushes an error code for 8, 10-14,
// 17, 21, 29 and 30, the others push a zero in its place.
        .balign 16
fault_stubs:
        .irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        .balign 16
        .if (\v == 8) || (\v >= 10 && \v <= 14) || (\v == 17) || (\v == 21) || (\v == 29) || (\v == 30)
        pushq   $\v
        .else
        pushq   $0
        pushq   $\v
        .endif
        jmp     fault_common
        .endr

        .balign 8
gdt:
        .quad   0
        .quad   0x00cf9a000000ffff      // 0x08: 32-bit code
        .quad   0x00cf92000000ffff      // 0x10: data
        .quad   0x00af9a000000ffff      // 0x18: 64-bit code
        .quad   0x0000890000000067      // 0x20: 64-bit TSS (base filled in), 104 bytes
        .quad   0
gdt_end:
gdtr:
        .word   gdt_end - gdt - 1
        .long   ABS(gdt)
        .balign 8
gdtr64:
        .word   gdt_end - gdt - 1
        .quad   GDT_RAM
        .balign 8
idtr:
        .word   32 * 16 - 1
        .quad   IDT
mxcsr_default:
        .long   0x1f80

msg_fault:     .asciz "PTOBOCHS: exception vector 0x"
msg_rip:       .asciz " at rip 0x"
msg_reset:     .asciz "PTOBOCHS: the CPU was reset (triple fault)\n"
msg_nopayload: .asciz "PTOBOCHS: no payload in memory\n"
msg_shutdown:  .asciz "Shutdown"

// The reset vector, 16 bytes below the top of the ROM.
        .org    0xfff0
        .code16
        ljmp    $0xf000, $(start16 - rom_start)
        .org    0x10000
